// The agent inbox's one script, served as /desk/assets/desk.js (docs/decisions/0089-helpdesk-agent-inbox.md).
// Every page works without it; it adds the keyboard shortcuts that the "?" panel lists. Elements
// marked `data-key="x"` say what a key does: one holding a text box gets the focus, one holding a
// form sends it, a link is followed. On a ticket list, j and k select a row and the row's own marks
// win; x ticks the selected row for a bulk change and / goes to the search box. Keys typed into a
// text box stay there (Escape leaves it). The canned reply picker inserts the snippet, filled in by
// the Help desk API, where the reply box's cursor is, instead of loading the page with it.
export const INBOX_JS = `'use strict';
(function () {
  var rows = Array.prototype.slice.call(document.querySelectorAll('[data-ticket-row]'));
  var help = document.getElementById('desk-keys');
  var current = -1;

  function typing(element) {
    if (!element) return false;
    if (element.tagName === 'INPUT') return element.type !== 'checkbox';
    return element.isContentEditable || /^(TEXTAREA|SELECT)$/.test(element.tagName);
  }

  function select(index) {
    if (rows.length === 0) return false;
    if (current >= 0) rows[current].classList.remove('selected');
    current = Math.max(0, Math.min(rows.length - 1, index));
    var row = rows[current];
    row.classList.add('selected');
    var link = row.querySelector('a[data-open]');
    if (link) link.focus();
    row.scrollIntoView({ block: 'nearest' });
    return true;
  }

  function marked(key) {
    var selector = '[data-key="' + key + '"]';
    if (rows.length > 0) return current >= 0 ? rows[current].querySelector(selector) : null;
    return document.querySelector(selector);
  }

  function act(key) {
    var target = key === '/' ? document.querySelector('[data-key="/"]') : marked(key);
    if (!target) return false;
    if (target.type === 'checkbox') {
      target.checked = !target.checked;
      return true;
    }
    var box = target.querySelector('textarea, input:not([type=hidden])');
    if (box) {
      box.focus();
      box.scrollIntoView({ block: 'center' });
      return true;
    }
    var form = target.tagName === 'FORM' ? target : target.querySelector('form');
    if (form) {
      if (form.requestSubmit) form.requestSubmit();
      else form.submit();
      return true;
    }
    if (target.tagName === 'A') {
      target.click();
      return true;
    }
    return false;
  }

  // A row clicked or tabbed into becomes the selected one.
  rows.forEach(function (row, index) {
    row.addEventListener('focusin', function () {
      if (current === index) return;
      if (current >= 0) rows[current].classList.remove('selected');
      current = index;
      row.classList.add('selected');
    });
  });

  var canned = document.querySelector('form[data-canned]');
  var replyBox = document.getElementById('reply-body');
  if (canned && replyBox && window.fetch) {
    canned.addEventListener('submit', function (event) {
      event.preventDefault();
      var pick = canned.querySelector('select');
      var url = '/api/helpdesk/v1/tickets/' + canned.getAttribute('data-canned') + '/canned-replies/' + encodeURIComponent(pick.value);
      fetch(url, { credentials: 'same-origin', headers: { accept: 'application/json' } })
        .then(function (response) {
          if (!response.ok) throw new Error('status ' + response.status);
          return response.json();
        })
        .then(function (snippet) {
          var start = replyBox.selectionStart, end = replyBox.selectionEnd, text = replyBox.value;
          replyBox.value = text.slice(0, start) + snippet.body + text.slice(end);
          replyBox.focus();
          replyBox.setSelectionRange(start + snippet.body.length, start + snippet.body.length);
        })
        .catch(function () {
          // The page without script does the same: ask for it filled in.
          canned.submit();
        });
    });
  }

  document.addEventListener('keydown', function (event) {
    if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) return;
    if (typing(event.target)) {
      if (event.key === 'Escape') event.target.blur();
      return;
    }
    var done = false;
    if (event.key === 'j') done = select(current + 1);
    else if (event.key === 'k') done = select(current < 0 ? 0 : current - 1);
    else if (event.key === 'o') done = current >= 0 && act('o');
    else if (event.key === '?' && help) {
      help.open = !help.open;
      if (help.open) help.querySelector('summary').focus();
      done = true;
    } else if (event.key === 'Escape' && help && help.open) {
      help.open = false;
      done = true;
    } else if (/^[arnex/]$/.test(event.key)) done = act(event.key);
    if (done) event.preventDefault();
  });
})();
`;

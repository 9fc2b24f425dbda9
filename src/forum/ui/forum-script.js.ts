// The forum's one script, served as /assets/forum.js to members (docs/decisions/0094-forum-composer.md).
// Every page works without it. In each composer (`form[data-composer]`) it updates the preview as
// one types and saves the draft with it, where the form keeps one (one debounced `POST /compose/preview`), uploads a
// chosen, dropped or pasted file at once and puts its Markdown at the cursor, and suggests members after
// "@" (a listbox the text box points into with aria-activedescendant, no aria-expanded, which a
// text area's role does not take: arrows move, Enter or Tab
// take, Escape closes). On a topic, selecting text in a post offers "Quote", which puts the passage
// with its attribution into the reply box. Each code block in a post gets a "Copy" button.
export const FORUM_JS = `'use strict';
(function () {
  function token(form) {
    var field = form.querySelector('input[name="_csrf"]');
    return field ? field.value : '';
  }

  function say(form, text) {
    var status = form.querySelector('[data-draft-status]');
    if (status) status.textContent = text;
  }

  /** The message of a refusal: the error page's first paragraph, or the status. */
  function refusal(response) {
    return response.text().then(function (text) {
      var doc = new DOMParser().parseFromString(text, 'text/html');
      var message = doc.querySelector('main p');
      return message ? message.textContent : 'The server answered ' + response.status + '.';
    });
  }

  function insertAtCursor(box, text) {
    var start = box.selectionStart, end = box.selectionEnd, value = box.value;
    var before = value.slice(0, start), after = value.slice(end);
    var lead = before === '' || /\\n$/.test(before) ? '' : '\\n';
    box.value = before + lead + text + (/^\\n/.test(after) ? '' : '\\n') + after;
    var caret = (before + lead + text).length + 1;
    box.setSelectionRange(caret, caret);
    box.dispatchEvent(new Event('input', { bubbles: true }));
  }

  // Composer: live preview and draft, uploads -----------------------------------------------------

  function composer(form) {
    var box = form.querySelector('textarea[data-body]');
    var pane = form.querySelector('[data-preview]');
    var title = form.querySelector('input[name="title"]');
    var file = form.querySelector('input[data-file]');
    var attach = form.querySelector('[data-attach]');
    if (!box || !pane) return;
    var timer = 0, sent = 0;

    function refresh() {
      var mine = ++sent;
      var fields = new URLSearchParams({ _csrf: token(form), body: box.value, title: title ? title.value : '', draft: \
form.dataset.draft || '' });
      fetch('/compose/preview', { method: 'POST', body: fields, credentials: 'same-origin' }).then(function (response) {
        if (!response.ok) return refusal(response).then(function (message) { say(form, message); });
        return response.text().then(function (markup) {
          if (mine !== sent) return;
          pane.querySelector('.body').innerHTML = markup;
          pane.hidden = box.value.trim() === '';
          if (form.dataset.draft) say(form, 'Draft saved.');
        });
      }).catch(function () { say(form, 'Not saved: the server cannot be reached.'); });
    }
    function soon() {
      clearTimeout(timer);
      timer = setTimeout(refresh, 600);
    }
    box.addEventListener('input', soon);
    if (title) title.addEventListener('input', soon);
    // Posting deletes the draft: a preview still waiting must not save it again behind the post.
    form.addEventListener('submit', function () { clearTimeout(timer); sent++; });

    function upload(chosen) {
      var body = new FormData();
      body.append('_csrf', token(form));
      body.append('file', chosen);
      say(form, 'Uploading ' + chosen.name + '…');
      return fetch('/compose/upload', { method: 'POST', body: body, credentials: 'same-origin' }\
).then(function (response) {
        if (!response.ok) return refusal(response).then(function (message) { say(form, message); });
        return response.json().then(function (uploaded) {
          insertAtCursor(box, uploaded.markdown);
          say(form, 'Uploaded ' + uploaded.filename + '.');
        });
      });
    }
    if (file) {
      // Files go up as soon as they are chosen, so the button of the page without script is not needed.
      if (attach) attach.hidden = true;
      file.addEventListener('change', function () {
        if (file.files.length === 0) return;
        upload(file.files[0]).then(function () { file.value = ''; });
      });
      box.addEventListener('dragover', function (event) { if (event.dataTransfer && \
Array.prototype.indexOf.call(event.dataTransfer.types, 'Files') >= 0) event.preventDefault(); });
      box.addEventListener('drop', function (event) {
        var files = event.dataTransfer ? event.dataTransfer.files : [];
        if (files.length === 0) return;
        event.preventDefault();
        Array.prototype.reduce.call(files, function (done, one) { return done.then(function () { return upload(one); }\
); }, Promise.resolve());
      });
      box.addEventListener('paste', function (event) {
        var files = event.clipboardData ? event.clipboardData.files : [];
        if (files.length === 0) return;
        event.preventDefault();
        upload(files[0]);
      });
    }
    mentions(box);
  }

  // @mentions ---------------------------------------------------------------------------------------

  function mentions(box) {
    var list = document.createElement('ul');
    list.id = box.id + '-mentions';
    list.className = 'mentions';
    list.setAttribute('role', 'listbox');
    list.setAttribute('aria-label', 'Members to mention');
    list.hidden = true;
    box.insertAdjacentElement('afterend', list);
    box.setAttribute('aria-autocomplete', 'list');
    box.setAttribute('aria-controls', list.id);
    var names = [], active = -1, asked = 0, timer = 0;

    function typed() {
      var match = /(^|[^A-Za-z0-9_.@-])@([A-Za-z0-9_.-]{1,39})$/.exec(box.value.slice(0, box.selectionStart));
      return match ? match[2] : null;
    }
    function close() {
      names = [];
      active = -1;
      list.hidden = true;
      list.textContent = '';
      box.removeAttribute('aria-activedescendant');
    }
    function mark(index) {
      active = index;
      Array.prototype.forEach.call(list.children, function (option, i) { option.setAttribute('aria-selected', i === \
index ? 'true' : 'false'); });
      box.setAttribute('aria-activedescendant', list.id + '-' + index);
    }
    function take(index) {
      var prefix = typed();
      if (prefix === null) return close();
      var start = box.selectionStart - prefix.length;
      var rest = box.value.slice(box.selectionStart);
      box.value = box.value.slice(0, start) + names[index] + (/^\\s/.test(rest) ? '' : ' ') + rest;
      var caret = start + names[index].length + 1;
      box.setSelectionRange(caret, caret);
      close();
      box.dispatchEvent(new Event('input', { bubbles: true }));
    }
    function show(found) {
      names = found;
      list.textContent = '';
      if (found.length === 0) return close();
      found.forEach(function (name, i) {
        var option = document.createElement('li');
        option.id = list.id + '-' + i;
        option.setAttribute('role', 'option');
        option.textContent = '@' + name;
        option.addEventListener('mousedown', function (event) { event.preventDefault(); take(i); });
        list.appendChild(option);
      });
      list.hidden = false;
      mark(0);
    }
    function ask() {
      var prefix = typed();
      if (prefix === null) return close();
      var mine = ++asked;
      fetch('/compose/mentions?q=' + encodeURIComponent(prefix), { credentials: 'same-origin' }\
).then(function (response) {
        return response.ok ? response.json() : [];
      }).then(function (found) { if (mine === asked) show(found); });
    }
    box.addEventListener('input', function () {
      clearTimeout(timer);
      if (typed() === null) return close();
      timer = setTimeout(ask, 150);
    });
    box.addEventListener('keydown', function (event) {
      if (list.hidden) return;
      if (event.key === 'ArrowDown') { event.preventDefault(); mark((active + 1) % names.length); }
      else if (event.key === 'ArrowUp') { event.preventDefault(); mark((active - 1 + names.length) % names.length); }
      else if (event.key === 'Enter' || event.key === 'Tab') { event.preventDefault(); take(active); }
      else if (event.key === 'Escape') { event.preventDefault(); close(); }
    });
    box.addEventListener('blur', function () { setTimeout(close, 100); });
  }

  // Quoting a passage of a post -------------------------------------------------------------------

  function quoting() {
    var target = document.getElementById('reply-body');
    var posts = document.querySelectorAll('article.post[data-author]');
    if (!target || posts.length === 0) return;
    var chosen = null;
    Array.prototype.forEach.call(posts, function (post) {
      var actions = post.querySelector('.actions');
      if (!actions) return;
      var button = document.createElement('button');
      button.type = 'button';
      button.className = 'secondary small quote';
      button.textContent = 'Quote';
      button.setAttribute('aria-label', 'Quote the selected text of ' + post.dataset.author);
      button.hidden = true;
      // Keep the selection when the button is pressed with the mouse.
      button.addEventListener('mousedown', function (event) { event.preventDefault(); });
      button.addEventListener('click', function () {
        if (!chosen || chosen.post !== post) return;
        var quoted = chosen.text.trim().split(/\\n/).map(function (line) { return '> ' + line; }).join('\\n');
        var before = target.value.replace(/\\s+$/, '');
        target.value = (before ? before + '\\n\\n' : '') + '@' + post.dataset.author + ' [wrote](/p/' + \
post.id.slice(2) + '):\\n' + quoted + '\\n\\n';
        target.focus();
        target.setSelectionRange(target.value.length, target.value.length);
        target.dispatchEvent(new Event('input', { bubbles: true }));
        button.hidden = true;
      });
      actions.insertBefore(button, actions.firstChild);
    });
    document.addEventListener('selectionchange', function () {
      var selection = document.getSelection();
      var text = selection ? selection.toString() : '';
      var body = function (node) { var element = node && (node.nodeType === 1 ? node : node.parentElement); \
return element ? element.closest('article.post[data-author] > .body') : null; };
      var inside = selection && selection.rangeCount > 0 ? body(selection.anchorNode) : null;
      if (text.trim() !== '' && inside && inside === body(selection.focusNode)) {
        chosen = { post: inside.parentElement, text: text };
      } else if (document.activeElement && document.activeElement.classList.contains('quote')) {
        return;
      } else {
        chosen = null;
      }
      Array.prototype.forEach.call(document.querySelectorAll('button.quote'), function (button) {
        button.hidden = !chosen || button.closest('article.post') !== chosen.post;
      });
    });
  }

  // Code blocks: a Copy button, whose result a status line reads out -------------------------------

  function copyButtons() {
    var blocks = document.querySelectorAll('article.post > .body pre');
    if (blocks.length === 0 || !navigator.clipboard) return;
    var status = document.createElement('p');
    status.className = 'sr-only';
    status.setAttribute('role', 'status');
    document.body.appendChild(status);
    Array.prototype.forEach.call(blocks, function (pre) {
      var button = document.createElement('button');
      button.type = 'button';
      button.className = 'copy';
      // The visible word starts the accessible name ("Copy the code"), as WCAG 2.5.3 asks.
      var word = document.createElement('span');
      word.textContent = 'Copy';
      var rest = document.createElement('span');
      rest.className = 'sr-only';
      rest.textContent = ' the code';
      button.appendChild(word);
      button.appendChild(rest);
      button.addEventListener('click', function () {
        var code = pre.querySelector('code');
        navigator.clipboard.writeText((code || pre).textContent).then(function () {
          word.textContent = 'Copied';
          status.textContent = 'Code copied.';
        }, function () {
          status.textContent = 'The browser did not allow copying.';
        });
        setTimeout(function () { word.textContent = 'Copy'; }, 2000);
      });
      pre.appendChild(button);
    });
  }

  Array.prototype.forEach.call(document.querySelectorAll('form[data-composer]'), composer);
  quoting();
  copyButtons();
})();
`;

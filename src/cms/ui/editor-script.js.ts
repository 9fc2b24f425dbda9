// The CMS editor's one script, served as /assets/cms-editor.js to the entry form (decision 0136).
// The form works without it (Preview posts the form back). With it, each Markdown field
// (`[data-markdown]`) gets a toolbar for bold, italic, link, list and code, and a preview beside
// the box that follows the typing: one debounced `POST /admin/content/preview`, rendered on the
// server by the same renderer and sanitizer as the form's Preview button. "Draft with AI"
// (`[data-ai-draft]`) asks `POST /admin/content/{type}/ai-draft` and fills the fields in place
// instead of posting the form back; nothing is saved until Save.
export const EDITOR_JS = `'use strict';
(function () {
  var MARKS = {
    bold: ['**', '**', 'bold text'],
    italic: ['_', '_', 'italic text'],
    link: ['[', '](https://)', 'link text'],
    code: ['\\x60', '\\x60', 'code']
  };

  function wrap(box, name) {
    var start = box.selectionStart, end = box.selectionEnd, value = box.value;
    var chosen = value.slice(start, end);
    if (name === 'list') {
      var lineStart = value.lastIndexOf('\\n', start - 1) + 1;
      var lines = value.slice(lineStart, end).split('\\n').map(function (line) { return '- ' + line; }).join('\\n');
      box.value = value.slice(0, lineStart) + lines + value.slice(end);
      box.setSelectionRange(lineStart + lines.length, lineStart + lines.length);
    } else {
      var mark = MARKS[name], text = chosen || mark[2];
      box.value = value.slice(0, start) + mark[0] + text + mark[1] + value.slice(end);
      box.setSelectionRange(start + mark[0].length, start + mark[0].length + text.length);
    }
    box.focus();
    box.dispatchEvent(new Event('input', { bubbles: true }));
  }

  function editor(field) {
    var box = field.querySelector('textarea');
    var pane = field.querySelector('[data-preview]');
    var form = field.closest('form');
    var token = form.querySelector('input[name="_csrf"]');
    var toolbar = field.querySelector('[data-toolbar]');
    if (!box || !pane || !token) return;
    toolbar.hidden = false;
    field.querySelector('[data-preview-pane]').hidden = false;
    field.classList.add('live');
    Array.prototype.forEach.call(toolbar.querySelectorAll('button[data-mark]'), function (button) {
      button.addEventListener('click', function () { wrap(box, button.dataset.mark); });
    });
    var timer = 0, sent = 0;
    function refresh() {
      var mine = ++sent;
      var fields = new URLSearchParams({ _csrf: token.value, body: box.value });
      fetch('/admin/content/preview', { method: 'POST', body: fields, credentials: 'same-origin' }).then(function (response) {
        if (!response.ok) return;
        return response.text().then(function (markup) {
          if (mine === sent) pane.innerHTML = markup;
        });
      });
    }
    box.addEventListener('input', function () {
      clearTimeout(timer);
      timer = setTimeout(refresh, 300);
    });
    refresh();
  }

  function fill(form, name, value) {
    Array.prototype.forEach.call(form.querySelectorAll('[name="' + name + '"]'), function (input) {
      if (input.type === 'radio') input.checked = input.value === value;
      else if (input.type === 'checkbox') input.checked = value === 'on';
      else input.value = value;
      input.dispatchEvent(new Event('input', { bubbles: true }));
    });
  }

  function aiDrafting(panel) {
    var button = panel.querySelector('[data-ai-button]');
    var box = panel.querySelector('textarea');
    var status = panel.querySelector('[data-ai-status]');
    var form = panel.closest('form');
    var token = form.querySelector('input[name="_csrf"]');
    button.addEventListener('click', function (event) {
      event.preventDefault();
      var fields = new URLSearchParams({ _csrf: token.value, ai_prompt: box.value });
      if (panel.dataset.entry) fields.set('entry', panel.dataset.entry);
      button.disabled = true;
      status.textContent = 'Drafting…';
      fetch(panel.dataset.aiDraft, { method: 'POST', body: fields, credentials: 'same-origin' })
        .then(function (response) {
          return response.json().then(function (body) {
            if (!response.ok) {
              status.textContent = body.detail || 'The AI could not draft this.';
              return;
            }
            Object.keys(body.values).forEach(function (name) { fill(form, name, body.values[name]); });
            status.textContent = 'AI filled ' + body.filled + (body.filled === 1 ? ' field' : ' fields') +
              '. Review them, then Save: nothing is saved yet.';
          });
        })
        .catch(function () { status.textContent = 'The AI could not be reached; try again.'; })
        .then(function () { button.disabled = false; });
    });
  }

  Array.prototype.forEach.call(document.querySelectorAll('[data-markdown]'), editor);
  Array.prototype.forEach.call(document.querySelectorAll('[data-ai-draft]'), aiDrafting);
})();
`;

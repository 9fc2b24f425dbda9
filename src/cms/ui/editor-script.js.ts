// The CMS editor's one script, served as /assets/cms-editor.js to the entry form (decision 0136).
// The form works without it (Preview posts the form back). With it, each Markdown field
// (`[data-markdown]`) gets a toolbar for bold, italic, link, list and code, and a preview beside
// the box that follows the typing: one debounced `POST /admin/content/preview`, rendered on the
// server by the same renderer and sanitizer as the form's Preview button.
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

  Array.prototype.forEach.call(document.querySelectorAll('[data-markdown]'), editor);
})();
`;

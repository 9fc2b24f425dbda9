// The CMS editor's one script, served as /assets/cms-editor.js to the entry form (decisions 0136,
// 0139, 0140). The form works without it (Preview posts the form back, media fields are a select). With
// it, each Markdown field (`[data-markdown]`) gets a toolbar for bold, italic, link, list, code and
// an image, and a preview beside the box that follows the typing: one debounced
// `POST /admin/content/preview`, rendered on the server by the same renderer and sanitizer as the
// form's Preview button. An image pasted or dropped into the box (or chosen with the Image button)
// is uploaded to the media library (`POST /admin/media`, CSRF token first, asking for JSON) and
// `![alt](url)` goes in at the cursor, the alt words selected to be typed over. Each media field
// (`[data-media-field]`) gets a dialog of the library's thumbnails with a search, which sets its
// select.
// "Draft with AI" (`[data-ai-draft]`) asks `POST /admin/content/{type}/ai-draft` and fills the fields
// in place instead of posting the form back; nothing is saved until Save.
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

  function say(status, text, failed, progress) {
    status.hidden = false;
    status.classList.toggle('error', failed);
    status.textContent = text;
    if (progress !== undefined) {
      var bar = document.createElement('progress');
      bar.max = 100;
      bar.value = progress;
      bar.setAttribute('aria-hidden', 'true');
      status.appendChild(bar);
    }
  }

  // "summer-fields.png" -> "summer fields": words to start the alt text from.
  function altOf(name) {
    return name.replace(/[.][^.]*$/, '').replace(/[-_]+/g, ' ').trim() || 'image';
  }

  function upload(box, file, status, token) {
    var name = file.name || 'image';
    if (!/^image[/]/.test(file.type)) {
      say(status, name + ' is not an image; only images go into the text.', true);
      return;
    }
    var start = box.selectionStart, end = box.selectionEnd;
    var data = new FormData();
    data.append('_csrf', token.value);
    data.append('alt', '');
    data.append('file', file, name);
    var request = new XMLHttpRequest();
    request.open('POST', '/admin/media');
    request.setRequestHeader('Accept', 'application/json');
    say(status, 'Uploading ' + name + '…', false, 0);
    request.upload.addEventListener('progress', function (event) {
      if (event.lengthComputable) say(status, 'Uploading ' + name + '…', false, Math.round((event.loaded * 100) / event.total));
    });
    request.addEventListener('load', function () {
      var body = {};
      try { body = JSON.parse(request.responseText); } catch (error) { body = {}; }
      if (request.status !== 201 || !body.url) {
        say(status, 'Could not upload ' + name + ': ' + (body.detail || 'the server answered ' + request.status) + '.', true);
        return;
      }
      var alt = altOf(body.filename || name);
      var text = '![' + alt + '](' + body.url + ')';
      var value = box.value;
      box.value = value.slice(0, start) + text + value.slice(end);
      box.focus();
      box.setSelectionRange(start + 2, start + 2 + alt.length);
      box.dispatchEvent(new Event('input', { bubbles: true }));
      say(status, 'Uploaded ' + name + ' to the media library and inserted it; its alt text is selected to type over.', false);
    });
    request.addEventListener('error', function () {
      say(status, 'Could not upload ' + name + ': the connection failed.', true);
    });
    request.send(data);
  }

  function images(list) {
    return Array.prototype.filter.call(list || [], function (file) { return /^image[/]/.test(file.type); });
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
    var status = field.querySelector('[data-upload-status]');
    var picker = field.querySelector('[data-image-file]');
    var hint = document.getElementById(box.id + '-hint');
    if (hint) hint.textContent += ' Paste or drop an image (or use Image…) to upload it to the media library.';
    toolbar.querySelector('[data-image]').addEventListener('click', function () { picker.click(); });
    picker.addEventListener('change', function () {
      Array.prototype.forEach.call(picker.files, function (file) { upload(box, file, status, token); });
      picker.value = '';
    });
    box.addEventListener('paste', function (event) {
      var files = images(event.clipboardData && event.clipboardData.files);
      if (files.length === 0) return;
      event.preventDefault();
      files.forEach(function (file) { upload(box, file, status, token); });
    });
    box.addEventListener('dragover', function (event) {
      if (event.dataTransfer && Array.prototype.indexOf.call(event.dataTransfer.types, 'Files') >= 0) event.preventDefault();
    });
    box.addEventListener('drop', function (event) {
      var files = event.dataTransfer ? Array.prototype.slice.call(event.dataTransfer.files) : [];
      if (files.length === 0) return;
      event.preventDefault();
      files.forEach(function (file) { upload(box, file, status, token); });
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

  function element(tag, attributes, text) {
    var node = document.createElement(tag);
    Object.keys(attributes).forEach(function (name) { node.setAttribute(name, attributes[name]); });
    if (text) node.textContent = text;
    return node;
  }

  function image(option) {
    var attributes = { src: option.value, alt: '', loading: 'lazy', decoding: 'async' };
    if (option.dataset.width) {
      attributes.width = option.dataset.width;
      attributes.height = option.dataset.height;
    }
    return element('img', attributes);
  }

  var dialogs = 0;
  function mediaField(field) {
    var select = field.querySelector('select');
    var thumb = field.querySelector('[data-media-thumb]');
    var label = field.querySelector('label').textContent;
    var id = 'media-dialog-' + ++dialogs;
    function show() {
      var option = select.options[select.selectedIndex];
      thumb.textContent = '';
      var pictured = option && option.value !== '' && /^image[/]/.test(option.dataset.type || '');
      if (pictured) thumb.appendChild(image(option));
      thumb.hidden = !pictured;
    }
    var open = element('button', { type: 'button', class: 'secondary small', 'aria-haspopup': 'dialog' }, 'Choose from the library…');
    select.insertAdjacentElement('afterend', open);
    var dialog = element('dialog', { class: 'media-dialog', 'aria-labelledby': id + '-title' });
    dialog.appendChild(element('h2', { id: id + '-title' }, label + ': choose media'));
    var search = element('input', { type: 'search', id: id + '-search', autocomplete: 'off' });
    var searchLabel = element('label', { for: id + '-search' }, 'Search media (name or alt text)');
    dialog.appendChild(searchLabel);
    dialog.appendChild(search);
    var count = element('p', { class: 'muted', role: 'status' });
    dialog.appendChild(count);
    var grid = element('ul', { class: 'media-grid picker' });
    dialog.appendChild(grid);
    Array.prototype.forEach.call(select.options, function (option) {
      var item = element('li', {});
      var button = element('button', { type: 'button', class: 'media-pick', 'data-value': option.value });
      if (option.value !== '' && /^image[/]/.test(option.dataset.type || '')) button.appendChild(image(option));
      button.appendChild(element('span', {}, option.textContent));
      button.addEventListener('click', function () {
        select.value = option.value;
        select.dispatchEvent(new Event('change', { bubbles: true }));
        dialog.close();
      });
      item.appendChild(button);
      item.dataset.words = (option.textContent + ' ' + (option.dataset.alt || '')).toLowerCase();
      grid.appendChild(item);
    });
    var close = element('button', { type: 'button', class: 'secondary' }, 'Close');
    close.addEventListener('click', function () { dialog.close(); });
    dialog.appendChild(element('div', { class: 'actions' })).appendChild(close);
    function filter() {
      var words = search.value.trim().toLowerCase(), shown = 0;
      Array.prototype.forEach.call(grid.children, function (item) {
        item.hidden = words !== '' && item.dataset.words.indexOf(words) < 0;
        if (!item.hidden) shown++;
      });
      count.textContent = shown + (shown === 1 ? ' choice' : ' choices');
    }
    search.addEventListener('input', filter);
    field.appendChild(dialog);
    open.addEventListener('click', function () {
      search.value = '';
      filter();
      Array.prototype.forEach.call(grid.querySelectorAll('button'), function (button) {
        button.setAttribute('aria-pressed', String(button.dataset.value === select.value));
      });
      dialog.showModal();
      search.focus();
    });
    dialog.addEventListener('close', function () { open.focus(); });
    select.addEventListener('change', show);
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
  Array.prototype.forEach.call(document.querySelectorAll('[data-media-field]'), mediaField);
  Array.prototype.forEach.call(document.querySelectorAll('[data-ai-draft]'), aiDrafting);
})();
`;

// The console's one script, served as /assets/console.js. Every page works without it; it adds
// copy buttons for secrets shown once, turns a site page's sections into tabs (the ARIA tabs pattern:
// arrow keys, Home and End move between tabs, the address's #fragment picks one), and to the upload form a drop zone and a progress bar (the
// form is sent by XMLHttpRequest, whose upload events report progress, and the answer replaces the page).
export const CONSOLE_JS = `'use strict';
(function () {
  for (const button of document.querySelectorAll('button[data-copy]')) {
    const source = document.getElementById(button.dataset.copy);
    if (!source || !navigator.clipboard) continue;
    button.hidden = false;
    button.addEventListener('click', function () {
      navigator.clipboard.writeText(source.textContent).then(function () { button.textContent = 'Copied'; }\
, function () { button.textContent = 'Copy failed: select the text'; });
    });
  }

  const tabbed = document.querySelector('[data-tabs]');
  if (tabbed) {
    const list = tabbed.querySelector('nav.tabs ul');
    const tabs = Array.from(list.querySelectorAll('a[data-tab]'));
    const panels = tabs.map(function (tab) { return document.getElementById(tab.dataset.tab); });
    list.setAttribute('role', 'tablist');
    list.setAttribute('aria-label', 'Site sections');
    for (const item of list.children) item.setAttribute('role', 'presentation');
    tabs.forEach(function (tab, i) {
      tab.setAttribute('role', 'tab');
      tab.id = 'tab-' + tab.dataset.tab;
      tab.setAttribute('aria-controls', panels[i].id);
      panels[i].setAttribute('role', 'tabpanel');
      panels[i].setAttribute('aria-labelledby', tab.id);
      panels[i].tabIndex = 0;
    });
    tabbed.classList.add('tabbed');
    function select(index, focus) {
      tabs.forEach(function (tab, i) {
        const on = i === index;
        tab.setAttribute('aria-selected', on ? 'true' : 'false');
        tab.tabIndex = on ? 0 : -1;
        panels[i].hidden = !on;
      });
      if (focus) tabs[index].focus();
    }
    /** The tab whose panel holds what the address's #fragment names, or -1. */
    function fromHash() {
      const target = location.hash.length > 1 ? document.getElementById(decodeURIComponent(location.hash.slice(1))) : null;
      return target ? panels.findIndex(function (panel) { return panel.contains(target); }) : -1;
    }
    const chosen = tabbed.dataset.selected ? tabs.findIndex(function (t) { return t.dataset.tab === tabbed.dataset.selected; }) : -1;
    select(chosen >= 0 ? chosen : Math.max(0, fromHash()), false);
    tabs.forEach(function (tab, i) {
      tab.addEventListener('click', function (event) {
        event.preventDefault();
        select(i, false);
        history.replaceState(null, '', '#' + tab.dataset.tab + '-h');
      });
      tab.addEventListener('keydown', function (event) {
        const moves = { ArrowRight: i + 1, ArrowLeft: i - 1, Home: 0, End: tabs.length - 1 };
        if (!(event.key in moves)) return;
        event.preventDefault();
        select((moves[event.key] + tabs.length) % tabs.length, true);
      });
    });
    window.addEventListener('hashchange', function () {
      const index = fromHash();
      if (index >= 0) select(index, false);
    });
    // In-page links to another tab's content ("Upload a folder") open that tab.
    document.addEventListener('click', function (event) {
      const link = event.target.closest && event.target.closest('a[href^="#"]');
      if (!link || tabs.indexOf(link) >= 0) return;
      const target = document.getElementById(link.getAttribute('href').slice(1));
      const index = target ? panels.findIndex(function (panel) { return panel.contains(target); }) : -1;
      if (index >= 0) select(index, false);
    });
  }

  const form = document.querySelector('form[data-upload]');
  if (!form) return;
  const drop = form.querySelector('[data-drop]');
  const bar = form.querySelector('progress');
  const said = form.querySelector('[data-progress]');
  const button = form.querySelector('button[type=submit]');
  let dropped = null;

  function readAll(reader) {
    return new Promise(function (resolve, reject) {
      const all = [];
      (function next() {
        reader.readEntries(function (batch) {
          if (batch.length === 0) return resolve(all);
          all.push.apply(all, batch);
          next();
        }, reject);
      })();
    });
  }

  async function walk(entry, prefix, out) {
    if (entry.isFile) {
      const file = await new Promise(function (resolve, reject) { entry.file(resolve, reject); });
      out.push({ file: file, path: prefix + entry.name });
    } else if (entry.isDirectory) {
      for (const child of await readAll(entry.createReader())) await walk(child, prefix + entry.name + '/', out);
    }
  }

  async function droppedFiles(transfer) {
    const out = [];
    const entries = Array.from(transfer.items || []).map(function (item) { return item.webkitGetAsEntry ? \
item.webkitGetAsEntry() : null; });
    if (entries.length && entries.every(Boolean)) {
      for (const entry of entries) await walk(entry, '', out);
    } else {
      for (const file of transfer.files) out.push({ file: file, path: file.webkitRelativePath || file.name });
    }
    return out;
  }

  function chosenFiles() {
    if (dropped) return dropped;
    const out = [];
    for (const input of form.querySelectorAll('input[type=file]')) {
      for (const file of input.files) out.push({ file: file, path: file.webkitRelativePath || file.name });
    }
    return out;
  }

  drop.hidden = false;
  for (const type of ['dragenter', 'dragover']) {
    drop.addEventListener(type, function (event) { event.preventDefault(); drop.classList.add('over'); });
  }
  drop.addEventListener('dragleave', function () { drop.classList.remove('over'); });
  drop.addEventListener('drop', async function (event) {
    event.preventDefault();
    drop.classList.remove('over');
    dropped = await droppedFiles(event.dataTransfer);
    said.textContent = dropped.length + (dropped.length === 1 ? ' file' : ' files') + ' ready: ' + dropped.slice(0, \
3).map(function (f) { return f.path; }).join(', ') + (dropped.length > 3 ? ', …' : '');
    button.focus();
  });

  form.addEventListener('submit', function (event) {
    const files = chosenFiles();
    if (files.length === 0) return;
    event.preventDefault();
    const body = new FormData();
    body.append('_csrf', form.elements._csrf.value);
    body.append('mode', form.elements.mode.value);
    for (const f of files) body.append('files', f.file, f.path);
    const request = new XMLHttpRequest();
    request.open('POST', form.action);
    bar.hidden = false;
    button.disabled = true;
    request.upload.addEventListener('progress', function (e) {
      if (!e.lengthComputable) return;
      bar.value = Math.round((e.loaded / e.total) * 100);
      said.textContent = 'Uploading: ' + bar.value + '%';
    });
    request.upload.addEventListener('load', function () { said.textContent = 'Uploaded; storing the release…'; });
    request.addEventListener('load', function () {
      if (request.status < 300 && request.responseURL) { location.assign(request.responseURL); return; }
      const page = new DOMParser().parseFromString(request.responseText, 'text/html');
      const main = page.querySelector('main');
      if (main) document.querySelector('main').replaceWith(main);
      const alert = document.querySelector('[role=alert]');
      if (alert) { alert.tabIndex = -1; alert.focus(); }
    });
    request.addEventListener('error', function () {
      button.disabled = false;
      said.textContent = 'The upload did not reach the server; check the connection and try again.';
    });
    request.send(body);
  });
})();
`;

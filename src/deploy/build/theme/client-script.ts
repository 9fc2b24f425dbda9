// Browser code of built docs sites, in two fingerprinted files. clientScript, loaded with `defer` on
// every page: theme toggle, mobile menu, copy buttons, tab sync, table-of-contents highlight, and
// the search box's loader. searchScript, loaded by it the first time the search box is used (focus,
// typing or `/`), so a first page load carries no search code. Search fetches only the index files a
// query needs (see search-index.ts) and builds results with DOM methods, never innerHTML, so indexed
// text cannot inject markup. Plain ES2018, no dependencies.
import { SEARCH_INDEX_FILE } from '../search-index.js';

/** Runs in <head> before the first paint, so a chosen theme shows without a flash. */
export const themeBootScript = String.raw`try{var t=localStorage.getItem("blume-theme");if(t==="light"||t==="dark")document.documentElement.dataset.theme=t}catch(e){}`;

export const clientScript = String.raw`(function () {
  "use strict";
  var root = document.documentElement;

  var toggle = document.getElementById("theme-toggle");
  if (toggle) toggle.addEventListener("click", function () {
    var dark = root.dataset.theme ? root.dataset.theme === "dark" : matchMedia("(prefers-color-scheme: dark)").matches;
    root.dataset.theme = dark ? "light" : "dark";
    try { localStorage.setItem("blume-theme", root.dataset.theme); } catch (e) { /* private mode: the choice lasts for this page */ }
  });

  var menu = document.getElementById("menu-button");
  var sidebar = document.getElementById("sidebar");
  function setMenu(open) {
    document.body.classList.toggle("nav-open", open);
    menu.setAttribute("aria-expanded", String(open));
  }
  if (menu && sidebar) {
    menu.addEventListener("click", function () { setMenu(!document.body.classList.contains("nav-open")); });
    document.addEventListener("keydown", function (event) {
      if (event.key === "Escape" && document.body.classList.contains("nav-open")) { setMenu(false); menu.focus(); }
    });
    document.addEventListener("click", function (event) {
      if (document.body.classList.contains("nav-open") && !sidebar.contains(event.target) && !menu.contains(event.target)) setMenu(false);
    });
  }

  var words = document.documentElement.dataset;
  document.querySelectorAll("pre.code").forEach(function (pre) {
    if (!navigator.clipboard) return;
    var button = document.createElement("button");
    button.type = "button";
    button.className = "copy-button";
    pre.classList.add("has-copy");
    button.textContent = words.copy || "Copy";
    button.addEventListener("click", function () {
      navigator.clipboard.writeText(pre.querySelector("code").innerText).then(function () {
        button.textContent = words.copied || "Copied";
        setTimeout(function () { button.textContent = words.copy || "Copy"; }, 1500);
      });
    });
    pre.appendChild(button);
  });

  // Mermaid diagrams: the page shows their source until the renderer, loaded only by pages that
  // have one, draws each in its place (strict mode: labels are text, never HTML or script).
  var diagrams = document.querySelectorAll("pre.code > code.language-mermaid");
  if (diagrams.length && words.diagrams) {
    var renderer = document.createElement("script");
    renderer.src = words.diagrams;
    renderer.onload = function () {
      var dark = root.dataset.theme ? root.dataset.theme === "dark" : matchMedia("(prefers-color-scheme: dark)").matches;
      var nodes = [];
      diagrams.forEach(function (code) {
        var figure = document.createElement("div");
        figure.className = "diagram";
        figure.textContent = code.textContent;
        code.parentNode.replaceWith(figure);
        nodes.push(figure);
      });
      window.mermaid.initialize({ startOnLoad: false, securityLevel: "strict", theme: dark ? "dark" : "default" });
      window.mermaid.run({ nodes: nodes });
    };
    document.head.appendChild(renderer);
  }

  var tocLinks = Array.prototype.slice.call(document.querySelectorAll(".toc a"));
  if (tocLinks.length && "IntersectionObserver" in window) {
    var byId = {};
    tocLinks.forEach(function (a) { byId[decodeURIComponent(a.hash.slice(1))] = a; });
    var observer = new IntersectionObserver(function (entries) {
      entries.forEach(function (entry) {
        if (!entry.isIntersecting || !byId[entry.target.id]) return;
        tocLinks.forEach(function (a) { a.classList.remove("active"); });
        byId[entry.target.id].classList.add("active");
      });
    }, { rootMargin: "0px 0px -70% 0px" });
    Object.keys(byId).forEach(function (id) { var h = document.getElementById(id); if (h) observer.observe(h); });
  }

  document.querySelectorAll(".tab-input").forEach(function (radio) {
    radio.addEventListener("change", function () {
      var label = radio.getAttribute("data-label");
      document.querySelectorAll(".tab-input").forEach(function (other) {
        if (other.getAttribute("data-label") === label) other.checked = true;
      });
      try { localStorage.setItem("blume-tab", label); } catch (e) { /* private mode: the choice lasts for this page */ }
    });
  });
  try {
    var savedTab = localStorage.getItem("blume-tab");
    if (savedTab) document.querySelectorAll(".tab-input").forEach(function (radio) {
      if (radio.getAttribute("data-label") === savedTab) radio.checked = true;
    });
  } catch (e) { /* no storage: first tabs stay selected */ }

  var form = document.getElementById("search");
  var input = document.getElementById("search-input");
  if (!form || !input) return;
  var searchLoading = false;
  function loadSearch() {
    if (searchLoading) return;
    searchLoading = true;
    var script = document.createElement("script");
    script.src = form.getAttribute("data-script");
    document.head.appendChild(script);
  }
  input.addEventListener("focus", loadSearch);
  input.addEventListener("input", loadSearch);
  // Until the search code is here, Enter stays on the page.
  form.addEventListener("submit", function (event) { event.preventDefault(); });
  document.addEventListener("keydown", function (event) {
    var typing = /^(INPUT|TEXTAREA|SELECT)$/.test(document.activeElement.tagName);
    if (event.key === "/" && !typing) { event.preventDefault(); input.focus(); }
  });
})();
`;

/** The search box, loaded on first use by clientScript; it answers what was typed before it arrived. */
export const searchScript = String.raw`(function () {
  "use strict";
  var form = document.getElementById("search");
  var input = document.getElementById("search-input");
  var list = document.getElementById("search-results");
  if (!form || !input || !list) return;
  var base = form.getAttribute("data-index");
  var files = {};
  var active = -1;
  var generation = 0;

  function fetchJson(name) {
    if (!files[name]) files[name] = fetch(base + name).then(function (r) { return r.ok ? r.json() : null; }).catch(function () { return null; });
    return files[name];
  }

  // The same normalisation, shard key and word file as the build (src/deploy/build/search-index.ts).
  function words(text) {
    return (text.normalize("NFKD").replace(/[\u0300-\u036f]/g, "").toLowerCase().match(/[\p{L}\p{N}_]+/gu) || []).filter(function (w) { return w.length > 1; });
  }
  function shardKey(word) {
    return Array.from(word).slice(0, 2).map(function (ch) { return /[a-z0-9]/.test(ch) ? ch : "_" + ch.codePointAt(0).toString(16); }).join("");
  }
  function wordFile(firstKeys, key) {
    var file = 0;
    while (file + 1 < firstKeys.length && firstKeys[file + 1] <= key) file += 1;
    return "w" + file + ".json";
  }
  // Asked for as the script starts, before the first word is typed.
  var index = fetchJson("${SEARCH_INDEX_FILE}");

  /** Section number -> score for one query word: every indexed word it begins, best place counted. */
  function postings(term) {
    return index.then(function (files) {
      return files ? fetchJson(wordFile(files.wordFiles, shardKey(term))) : null;
    }).then(function (shard) {
      var found = {};
      if (!shard) return found;
      Object.keys(shard).forEach(function (word) {
        if (word.indexOf(term) !== 0) return;
        var section = 0;
        shard[word].forEach(function (n) {
          section += Math.floor(n / 4);
          var place = n % 4;
          var value = (place === 3 ? 12 : place === 2 ? 5 : 1) * (word === term ? 2 : 1);
          if (!found[section] || found[section] < value) found[section] = value;
        });
      });
      return found;
    });
  }

  function search(query) {
    var terms = words(query);
    if (!terms.length) return Promise.resolve({ terms: terms, hits: [] });
    return Promise.all([index].concat(terms.map(postings))).then(function (answers) {
      var size = answers[0] ? answers[0].sectionsPerFile : 1;
      var lists = answers.slice(1);
      var hits = [];
      Object.keys(lists[0]).forEach(function (key) {
        var total = 0;
        for (var i = 0; i < lists.length; i++) {
          if (!lists[i][key]) return;
          total += lists[i][key];
        }
        hits.push({ id: Number(key), s: total });
      });
      hits.sort(function (a, b) { return b.s - a.s || a.id - b.id; });
      hits = hits.slice(0, 10);
      return Promise.all(hits.map(function (hit) { return fetchJson("s" + Math.floor(hit.id / size) + ".json"); })).then(function (chunks) {
        return {
          terms: terms,
          hits: hits.map(function (hit, i) { return chunks[i] && chunks[i][hit.id % size]; }).filter(Boolean),
        };
      });
    });
  }

  function marked(parent, text, terms) {
    var lower = text.toLowerCase();
    var at = 0;
    while (at < text.length) {
      var next = -1, len = 0;
      for (var i = 0; i < terms.length; i++) {
        var p = lower.indexOf(terms[i], at);
        if (p !== -1 && (next === -1 || p < next)) { next = p; len = terms[i].length; }
      }
      if (next === -1) { parent.appendChild(document.createTextNode(text.slice(at))); break; }
      parent.appendChild(document.createTextNode(text.slice(at, next)));
      var m = document.createElement("mark");
      m.textContent = text.slice(next, next + len);
      parent.appendChild(m);
      at = next + len;
    }
  }

  function span(className, text, terms) {
    var el = document.createElement("span");
    el.className = className;
    if (terms) marked(el, text, terms); else el.textContent = text;
    return el;
  }

  function render() {
    var mine = ++generation;
    search(input.value).then(function (result) {
      if (mine !== generation) return;
      list.textContent = "";
      active = -1;
      if (!result.terms.length) { list.hidden = true; return; }
      result.hits.forEach(function (hit) {
        // hit: [heading, page title, url, section of the site, first words]
        var li = document.createElement("li");
        var a = document.createElement("a");
        a.href = hit[2];
        a.appendChild(span("hit-title", hit[0] || hit[1], result.terms));
        var where = hit[0] ? hit[1] : "";
        if (hit[3]) where = where ? hit[3] + " \u203A " + where : hit[3];
        if (where) a.appendChild(span("hit-section", where));
        if (hit[4]) a.appendChild(span("hit-text", hit[4] + (hit[4].length >= 120 ? "\u2026" : ""), result.terms));
        li.appendChild(a);
        list.appendChild(li);
      });
      if (!result.hits.length) {
        var none = document.createElement("li");
        none.className = "hit-text";
        none.textContent = document.documentElement.dataset.noResults || "No results";
        list.appendChild(none);
      }
      list.hidden = false;
    });
  }

  function move(step) {
    var links = list.querySelectorAll("a");
    if (!links.length) return;
    if (active >= 0) links[active].classList.remove("active");
    active = (active + step + links.length) % links.length;
    links[active].classList.add("active");
    links[active].scrollIntoView({ block: "nearest" });
  }

  input.addEventListener("focus", render);
  input.addEventListener("input", render);
  input.addEventListener("keydown", function (event) {
    if (event.key === "ArrowDown") { event.preventDefault(); move(1); }
    else if (event.key === "ArrowUp") { event.preventDefault(); move(-1); }
    else if (event.key === "Escape") { list.hidden = true; input.blur(); }
  });
  form.addEventListener("submit", function () {
    var links = list.querySelectorAll("a");
    var target = links[active >= 0 ? active : 0];
    if (target) location.href = target.href;
  });
  document.addEventListener("click", function (event) { if (!form.contains(event.target)) list.hidden = true; });
  if (document.activeElement === input || input.value) render();
})();
`;

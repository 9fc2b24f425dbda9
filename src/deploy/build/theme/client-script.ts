// Browser code of built docs sites, written to a fingerprinted file and loaded with `defer`: theme
// toggle, mobile menu, copy buttons, table-of-contents highlight and the search box. Search loads
// the JSON index on first use and builds results with DOM methods, never innerHTML, so indexed
// text cannot inject markup. Plain ES2017, no dependencies.

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
  if (menu) menu.addEventListener("click", function () {
    var open = document.body.classList.toggle("nav-open");
    menu.setAttribute("aria-expanded", String(open));
  });

  document.querySelectorAll("pre.code").forEach(function (pre) {
    if (!navigator.clipboard) return;
    var button = document.createElement("button");
    button.type = "button";
    button.className = "copy-button";
    button.textContent = "Copy";
    button.addEventListener("click", function () {
      navigator.clipboard.writeText(pre.querySelector("code").innerText).then(function () {
        button.textContent = "Copied";
        setTimeout(function () { button.textContent = "Copy"; }, 1500);
      });
    });
    pre.appendChild(button);
  });

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

  var form = document.getElementById("search");
  var input = document.getElementById("search-input");
  var list = document.getElementById("search-results");
  if (!form || !input || !list) return;
  var docs = null;
  var loading = null;
  var active = -1;

  function load() {
    if (!loading) loading = fetch(form.getAttribute("data-index")).then(function (r) { return r.json(); }).then(function (entries) {
      docs = entries.map(function (e) { return { e: e, t: e.t.toLowerCase(), h: e.h.toLowerCase(), x: e.x.toLowerCase() }; });
    });
    return loading;
  }

  function score(doc, terms) {
    var total = 0;
    for (var i = 0; i < terms.length; i++) {
      var term = terms[i];
      var s = 0;
      if (doc.t.indexOf(term) !== -1) s += doc.t.indexOf(term) === 0 ? 15 : 10;
      if (doc.h.indexOf(term) !== -1) s += 4;
      if (doc.x.indexOf(term) !== -1) s += 1;
      if (s === 0) return 0;
      total += s;
    }
    return total;
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

  function snippet(doc, terms) {
    var at = doc.x.indexOf(terms[0]);
    if (at === -1) return doc.e.x.slice(0, 140);
    var start = Math.max(0, at - 50);
    return (start > 0 ? "\u2026" : "") + doc.e.x.slice(start, start + 160) + "\u2026";
  }

  function render() {
    var terms = input.value.toLowerCase().split(/\s+/).filter(Boolean);
    list.textContent = "";
    active = -1;
    if (!terms.length || !docs) { list.hidden = true; return; }
    var hits = [];
    docs.forEach(function (doc) { var s = score(doc, terms); if (s > 0) hits.push({ doc: doc, s: s }); });
    hits.sort(function (a, b) { return b.s - a.s; });
    hits.slice(0, 10).forEach(function (hit) {
      var li = document.createElement("li");
      var a = document.createElement("a");
      a.href = hit.doc.e.u;
      var title = document.createElement("span");
      title.className = "hit-title";
      marked(title, hit.doc.e.t, terms);
      a.appendChild(title);
      if (hit.doc.e.s) {
        var section = document.createElement("span");
        section.className = "hit-section";
        section.textContent = hit.doc.e.s;
        a.appendChild(section);
      }
      var text = document.createElement("span");
      text.className = "hit-text";
      marked(text, snippet(hit.doc, terms), terms);
      a.appendChild(text);
      li.appendChild(a);
      list.appendChild(li);
    });
    if (!hits.length) {
      var none = document.createElement("li");
      none.className = "hit-text";
      none.textContent = "No results";
      list.appendChild(none);
    }
    list.hidden = false;
  }

  function move(step) {
    var links = list.querySelectorAll("a");
    if (!links.length) return;
    if (active >= 0) links[active].classList.remove("active");
    active = (active + step + links.length) % links.length;
    links[active].classList.add("active");
    links[active].scrollIntoView({ block: "nearest" });
  }

  input.addEventListener("focus", function () { load().then(render); });
  input.addEventListener("input", function () { load().then(render); });
  input.addEventListener("keydown", function (event) {
    if (event.key === "ArrowDown") { event.preventDefault(); move(1); }
    else if (event.key === "ArrowUp") { event.preventDefault(); move(-1); }
    else if (event.key === "Escape") { list.hidden = true; input.blur(); }
  });
  form.addEventListener("submit", function (event) {
    event.preventDefault();
    var links = list.querySelectorAll("a");
    var target = links[active >= 0 ? active : 0];
    if (target) location.href = target.href;
  });
  document.addEventListener("click", function (event) { if (!form.contains(event.target)) list.hidden = true; });
  document.addEventListener("keydown", function (event) {
    var typing = /^(INPUT|TEXTAREA|SELECT)$/.test(document.activeElement.tagName);
    if (event.key === "/" && !typing) { event.preventDefault(); input.focus(); }
  });
})();
`;

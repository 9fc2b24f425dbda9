// The stylesheet of built docs sites, written to a fingerprinted file. Colours are CSS variables
// with a light and a dark set: the dark set applies under prefers-color-scheme unless the reader
// chose a theme with the toggle (data-theme on <html>). Code colours cover highlight.js classes and
// keep 4.5:1 contrast on the code background in both themes (checked in Chromium by a test).

const LIGHT = `--bg:#ffffff;--bg-soft:#f6f7f9;--fg:#1d2330;--fg-soft:#5a6372;--border:#e3e6eb;--accent:#2f5bd3;\
--accent-soft:#e8eefc;
--code-bg:#f4f5f7;--hl-keyword:#9b1f99;--hl-string:#2b6a1f;--hl-number:#9a4a00;--hl-comment:#5d6470;--hl-title:#2a52c0;\
--hl-attr:#85500a;--hl-meta:#4f5a66;--hl-deletion:#a8231b;--hl-addition:#266b2a;--hl-line:#e6ebf5;
--note:#2f5bd3;--tip:#2e7d32;--important:#7b3fc4;--warning:#9a5b00;--caution:#b3261e;`;
const DARK = `--bg:#14171c;--bg-soft:#1b1f26;--fg:#e4e7ec;--fg-soft:#9aa3b2;--border:#2b313b;--accent:#7ea2ff;\
--accent-soft:#1f2a44;
--code-bg:#1b1f26;--hl-keyword:#d19af5;--hl-string:#9bd67a;--hl-number:#f0a867;--hl-comment:#9aa3b2;--hl-title:#8fb3ff;\
--hl-attr:#e6c07b;--hl-meta:#a0aec0;--hl-deletion:#ff8a80;--hl-addition:#81c784;--hl-line:#263041;
--note:#7ea2ff;--tip:#81c784;--important:#c9a2ff;--warning:#e6c07b;--caution:#ff8a80;`;

export const siteStyles = `
:root{${LIGHT}color-scheme:light;--sidebar:17rem;--toc:14rem;\
--font:system-ui,-apple-system,"Segoe UI",Roboto,Ubuntu,sans-serif;\
--mono:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
@media (prefers-color-scheme:dark){:root:not([data-theme=light]){${DARK}color-scheme:dark}}
:root[data-theme=dark]{${DARK}color-scheme:dark}
*,*::before,*::after{box-sizing:border-box}
html{-webkit-text-size-adjust:100%;scroll-padding-top:4.5rem}
body{margin:0;background:var(--bg);color:var(--fg);font:16px/1.65 var(--font)}
a{color:var(--accent);text-underline-offset:.15em}
.skip{position:absolute;left:-999px}.skip:focus{left:1rem;top:.5rem;z-index:20;background:var(--bg);padding:.4rem .8rem}
.topbar{position:sticky;top:0;z-index:10;display:flex;align-items:center;gap:.75rem;height:3.5rem;padding:0 1rem;\
background:var(--bg);border-bottom:1px solid var(--border)}
.brand{display:flex;align-items:center;gap:.5rem;font-weight:650;color:var(--fg);text-decoration:none;\
white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
.brand img{height:1.75rem;width:auto}
.search{position:relative;margin-left:auto;width:min(22rem,45vw)}
.search input{width:100%;padding:.4rem .7rem;border:1px solid var(--border);border-radius:.5rem;\
background:var(--bg-soft);color:var(--fg);font:inherit;font-size:.9rem}
.search input:focus{outline:2px solid var(--accent);outline-offset:-1px}
.search-results{position:absolute;right:0;top:calc(100% + .35rem);width:min(32rem,92vw);max-height:70vh;overflow:auto;\
margin:0;padding:.35rem;list-style:none;background:var(--bg);border:1px solid var(--border);border-radius:.6rem;\
box-shadow:0 10px 30px rgba(0,0,0,.18)}
.search-results[hidden]{display:none}
.search-results a{display:block;padding:.45rem .6rem;border-radius:.4rem;color:var(--fg);text-decoration:none}
.search-results a:hover,.search-results a.active{background:var(--accent-soft)}
.search-results .hit-title{font-weight:600}.search-results .hit-section,.search-results .hit-text{display:block;\
font-size:.82rem;color:var(--fg-soft)}
.search-results mark{background:none;color:var(--accent);font-weight:600}
.icon-button{display:inline-flex;align-items:center;justify-content:center;width:2.25rem;height:2.25rem;\
border:1px solid var(--border);border-radius:.5rem;background:var(--bg);color:var(--fg);cursor:pointer;font-size:1rem}
.menu-button{display:none}
.layout{display:grid;grid-template-columns:var(--sidebar) minmax(0,1fr) var(--toc);max-width:90rem;margin:0 auto}
.sidebar{position:sticky;top:3.5rem;height:calc(100vh - 3.5rem);overflow:auto;padding:1.25rem 1rem 2rem;\
border-right:1px solid var(--border);font-size:.92rem}
.nav-list,.nav-list ul{list-style:none;margin:0;padding:0}
.nav-list ul{padding-left:.85rem;border-left:1px solid var(--border);margin-left:.35rem}
.nav-list a{display:block;padding:.2rem .5rem;border-radius:.35rem;color:var(--fg-soft);text-decoration:none}
.nav-list a:hover{color:var(--fg);background:var(--bg-soft)}
.nav-list a[aria-current=page]{color:var(--accent);background:var(--accent-soft);font-weight:600}
.nav-section{position:relative}.nav-section>a{margin-left:1rem;color:var(--fg);font-weight:550}
.nav-section summary{position:absolute;top:0;left:0;width:1rem;height:1.85rem;list-style:none;cursor:pointer}
.nav-section summary::-webkit-details-marker{display:none}
.nav-section summary::before{content:"\\203A";display:flex;align-items:center;justify-content:center;height:100%;
  color:var(--fg-soft);transition:transform .15s}
.nav-section details[open]>summary::before{transform:rotate(90deg)}
.breadcrumbs ol{display:flex;flex-wrap:wrap;gap:.3rem;list-style:none;margin:0 0 .6rem;padding:0;font-size:.85rem}
.breadcrumbs li+li::before{content:"/";margin-right:.3rem;color:var(--fg-soft)}
.breadcrumbs a{color:var(--fg-soft);text-decoration:none}.breadcrumbs a:hover{color:var(--accent)}
.site-tabs{display:flex;gap:.2rem;margin-left:.5rem;overflow-x:auto;scrollbar-width:none}
.site-tabs a{padding:.35rem .6rem;border-radius:.4rem;color:var(--fg-soft);text-decoration:none;white-space:nowrap}
.site-tabs a:hover{color:var(--fg);background:var(--bg-soft)}
.site-tabs a[aria-current]{color:var(--accent);font-weight:600}
main{min-width:0;padding:2rem clamp(1rem,4vw,3rem) 4rem}
.doc{max-width:48rem}
.doc h1{font-size:2.1rem;line-height:1.2;margin:0 0 1rem}
.doc h2{font-size:1.5rem;margin:2.2rem 0 .8rem;padding-bottom:.3rem;border-bottom:1px solid var(--border)}
.doc h3{font-size:1.2rem;margin:1.8rem 0 .6rem}.doc h4,.doc h5,.doc h6{margin:1.4rem 0 .5rem}
.doc .anchor{margin-left:.4rem;color:var(--fg-soft);text-decoration:none;opacity:0;font-weight:400}
.doc :is(h1,h2,h3,h4,h5,h6):hover .anchor,.doc .anchor:focus{opacity:1}
.doc img{max-width:100%;height:auto}
.doc blockquote{margin:1rem 0;padding:.2rem 1rem;border-left:4px solid var(--accent);background:var(--bg-soft);\
color:var(--fg-soft)}
.doc hr{border:0;border-top:1px solid var(--border);margin:2rem 0}
.doc :not(pre)>code{font:.88em var(--mono);background:var(--code-bg);padding:.12em .35em;border-radius:.3em}
.doc pre.code{position:relative;overflow:auto;padding:.9rem 1rem;background:var(--code-bg);\
border:1px solid var(--border);border-radius:.5rem;font:.87rem/1.55 var(--mono)}
.doc pre.code[data-lang]::after{content:attr(data-lang);position:absolute;top:.3rem;right:.6rem;font-size:.7rem;\
color:var(--fg-soft);text-transform:uppercase}
.doc pre.code.has-copy[data-lang]::after{right:4.2rem}
.copy-button{position:absolute;top:.35rem;right:.35rem;padding:.15rem .5rem;font:.75rem var(--font);\
border:1px solid var(--border);border-radius:.35rem;background:var(--bg);color:var(--fg-soft);cursor:pointer;opacity:0}
pre.code:hover .copy-button,.copy-button:focus{opacity:1}
@media (hover:none){.copy-button{opacity:1}}
.doc pre.code .line.highlighted{display:inline-block;min-width:100%;margin:0 -1rem;padding:0 1rem;\
background:var(--hl-line);box-shadow:inset 3px 0 var(--accent)}
.doc .diagram{margin:1rem 0;overflow-x:auto;text-align:center;white-space:pre}
.code-block{margin:1rem 0}.code-block pre.code{margin:0;border-top-left-radius:0;border-top-right-radius:0}
.code-title{padding:.35rem 1rem;font:.8rem var(--mono);color:var(--fg-soft);background:var(--bg-soft);\
border:1px solid var(--border);border-bottom:0;border-radius:.5rem .5rem 0 0}
.callout{margin:1rem 0;padding:.6rem 1rem;border-left:4px solid var(--c,var(--note));border-radius:.35rem;\
background:var(--bg-soft)}
.callout>:last-child{margin-bottom:.2rem}
.callout-title{margin:.1rem 0 .3rem;font-weight:650;color:var(--c,var(--note))}
.callout-tip{--c:var(--tip)}.callout-important{--c:var(--important)}.callout-warning{--c:var(--warning)}\
.callout-caution,.callout-danger{--c:var(--caution)}
.tabs{display:flex;flex-wrap:wrap;margin:1rem 0;border-bottom:1px solid var(--border)}
.tabs>.tab-input{position:absolute;opacity:0;width:1px;height:1px}
.tabs>.tab-label{order:0;padding:.35rem .9rem;border-bottom:2px solid transparent;color:var(--fg-soft);cursor:pointer;\
font-size:.92rem}
.tabs>.tab-panel{order:1;flex-basis:100%;min-width:0;display:none}
.tabs>.tab-input:checked+.tab-label{color:var(--accent);border-bottom-color:var(--accent);font-weight:600}
.tabs>.tab-input:focus-visible+.tab-label{outline:2px solid var(--accent);outline-offset:-2px}
.tabs>.tab-input:checked+.tab-label+.tab-panel{display:block}
.toc-inline{display:none;margin:0 0 1.2rem;padding:.4rem .8rem;border:1px solid var(--border);border-radius:.5rem;\
font-size:.9rem}
.toc-inline summary{cursor:pointer;font-weight:600}.toc-inline ul{margin:.4rem 0;padding-left:1rem}\
.toc-inline li.level-3{margin-left:.8rem}
.page-meta{display:flex;flex-wrap:wrap;justify-content:space-between;gap:.5rem 1rem;max-width:48rem;margin-top:2.5rem;\
font-size:.85rem;color:var(--fg-soft)}.page-meta p{margin:0}
.table-wrap{overflow-x:auto;margin:1rem 0}
.math-display{overflow-x:auto;margin:1rem 0;font-size:1.15em}
.math-display math{display:block math;math-style:normal;text-align:center}
.doc table{border-collapse:collapse;font-size:.93rem}
.doc th,.doc td{border:1px solid var(--border);padding:.45rem .7rem;text-align:left}
.doc th{background:var(--bg-soft)}
.doc .task-list{list-style:none;padding-left:1.2rem}.doc .task{margin:0 .4rem 0 -1.2rem}
.doc .footnotes{font-size:.9rem;color:var(--fg-soft)}
.doc .lead{font-size:1.1rem;color:var(--fg-soft);margin-top:-.4rem}
.pager{display:flex;justify-content:space-between;gap:1rem;max-width:48rem;margin-top:3rem;padding-top:1.2rem;\
border-top:1px solid var(--border)}
.pager a{display:flex;flex-direction:column;padding:.6rem .9rem;border:1px solid var(--border);border-radius:.5rem;\
text-decoration:none;max-width:48%}
.pager a span{font-size:.78rem;color:var(--fg-soft)}.pager .next{margin-left:auto;text-align:right}
.toc{position:sticky;top:3.5rem;height:calc(100vh - 3.5rem);overflow:auto;padding:2rem 1rem;font-size:.85rem}
.toc h2{font-size:.75rem;text-transform:uppercase;letter-spacing:.06em;color:var(--fg-soft);margin:0 0 .5rem}
.toc ul{list-style:none;margin:0;padding:0}.toc li.level-3{padding-left:.8rem}
.toc a{display:block;padding:.15rem 0;color:var(--fg-soft);text-decoration:none}\
.toc a:hover,.toc a.active{color:var(--accent)}
.site-footer{padding:1.5rem;border-top:1px solid var(--border);color:var(--fg-soft);font-size:.82rem;text-align:center}
.hljs-keyword,.hljs-selector-tag,.hljs-built_in,.hljs-type,.hljs-literal{color:var(--hl-keyword)}
.hljs-string,.hljs-regexp,.hljs-symbol,.hljs-template-tag{color:var(--hl-string)}
.hljs-number,.hljs-variable,.hljs-template-variable{color:var(--hl-number)}
.hljs-comment,.hljs-quote{color:var(--hl-comment);font-style:italic}
.hljs-title,.hljs-section,.hljs-name,.hljs-function .hljs-title{color:var(--hl-title)}
.hljs-attr,.hljs-attribute,.hljs-property,.hljs-params,.hljs-selector-class,.hljs-selector-id{color:var(--hl-attr)}
.hljs-meta,.hljs-tag,.hljs-punctuation{color:var(--hl-meta)}
.hljs-deletion{color:var(--hl-deletion)}.hljs-addition{color:var(--hl-addition)}
.hljs-emphasis{font-style:italic}.hljs-strong{font-weight:700}
@media (max-width:1200px){.layout{grid-template-columns:var(--sidebar) minmax(0,1fr)}.toc{display:none}\
.toc-inline{display:block}}
@media (max-width:860px){
.layout{grid-template-columns:minmax(0,1fr)}
.menu-button{display:inline-flex}
.sidebar{position:fixed;left:0;top:3.5rem;z-index:9;width:min(20rem,85vw);background:var(--bg);\
transform:translateX(-105%);visibility:hidden;transition:transform .2s,visibility .2s;\
box-shadow:0 0 30px rgba(0,0,0,.2)}
body.nav-open .sidebar{transform:none;visibility:visible}
.search{width:auto;flex:1;position:static}.site-tabs{display:none}
.brand span{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%);white-space:nowrap}
.doc pre.code.has-copy,.doc pre.code[data-lang]{padding-top:2.2rem}
.search-results{left:.5rem;right:.5rem;top:3.4rem;width:auto}
}
@media print{.topbar,.sidebar,.toc,.toc-inline,.pager,.copy-button{display:none}.layout{display:block}}
`;

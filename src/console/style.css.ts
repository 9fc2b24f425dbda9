// The console's one stylesheet: system fonts, AA-contrast colours in light and dark (the system's
// choice, prefers-color-scheme), a visible focus ring, and a single column that fits a 390 px phone,
// where wide tables become cards.
export const CONSOLE_CSS = `
:root{color-scheme:light dark;--fg:#1a1a1a;--bg:#fafafa;--surface:#fff;--muted:#4a4a4a;--line:#d0d0d0;\
--field:#6b6b6b;--link:#0b57a4;--accent:#0b57a4;--on-accent:#fff;--danger:#b42318;--focus:#b45309;--top:#17324d;\
--err-bg:#fdecea;--err-fg:#7a1a12;--err-line:#b42318;--ok-bg:#e8f5e9;--ok-fg:#1b4d1f;--ok-line:#2e7d32;\
--warn-bg:#fff8e1;--warn-fg:#4d3300;--warn-line:#8a5a00;--live:#e8f5e9;--drop-over:#e8f0fb}
@media (prefers-color-scheme:dark){:root{--fg:#e8e8e8;--bg:#121417;--surface:#1c1f24;--muted:#b4b8bf;--line:#3a3f47;\
--field:#8a9099;--link:#8cc4ff;--accent:#2f6fb5;--on-accent:#fff;--danger:#c0392b;--focus:#f0a040;--top:#0d1b2a;\
--err-bg:#3a1512;--err-fg:#ffc9c2;--err-line:#e06b5c;--ok-bg:#142b17;--ok-fg:#bfe8c3;--ok-line:#5cb164;\
--warn-bg:#33270a;--warn-fg:#ffe2a0;--warn-line:#c99a2e;--live:#173320;--drop-over:#1a2b40}}
*,*::before,*::after{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg)}
a{color:var(--link)}
a:focus-visible,button:focus-visible,input:focus-visible,select:focus-visible,main:focus-visible,\
pre:focus-visible,[tabindex]:focus-visible{outline:3px solid var(--focus);outline-offset:2px}
.wrap{max-width:60rem;margin:0 auto;padding:0 1rem}
.skip{position:absolute;left:-999px}
.skip:focus{left:1rem;top:1rem;background:var(--surface);padding:.5rem;z-index:1}
header.top{background:var(--top);color:#fff}
header.top .wrap{display:flex;flex-wrap:wrap;align-items:center;justify-content:space-between;gap:.5rem;\
padding:.75rem 1rem}
header.top a,header.top button.link{color:#fff}
header.top ul{display:flex;flex-wrap:wrap;gap:1rem;list-style:none;margin:0;padding:0;align-items:center}
.brand{font-weight:700;font-size:1.2rem;text-decoration:none}
main{padding:1rem 0 3rem}
h1{font-size:1.6rem;margin:.5rem 0 1rem}
form.stack{display:grid;gap:.75rem;max-width:28rem}
label{font-weight:600;display:block}
.hint{font-weight:400;color:var(--muted);font-size:.9rem;margin:.1rem 0 0}
input,select{font:inherit;padding:.45rem .6rem;border:1px solid var(--field);border-radius:4px;width:100%;\
background:var(--surface);color:var(--fg)}
button{font:inherit;padding:.45rem 1rem;border:1px solid var(--accent);border-radius:4px;background:var(--accent);\
color:var(--on-accent);cursor:pointer}
button.danger{background:var(--danger);border-color:var(--danger)}
button.link{background:none;border:none;padding:0;color:var(--link);text-decoration:underline}
form.inline{display:inline}
table{border-collapse:collapse;width:100%}
th,td{text-align:left;padding:.4rem .5rem;border-bottom:1px solid var(--line);vertical-align:top}
.table{overflow-x:auto;position:relative}
.notice{padding:.6rem .8rem;border-radius:4px;border:1px solid}
.notice.error{background:var(--err-bg);border-color:var(--err-line);color:var(--err-fg)}
.notice.ok{background:var(--ok-bg);border-color:var(--ok-line);color:var(--ok-fg)}
.notice.warn{background:var(--warn-bg);border-color:var(--warn-line);color:var(--warn-fg)}
ul.links{display:flex;flex-wrap:wrap;gap:.5rem 1.5rem;padding:0;list-style:none}
.muted{color:var(--muted)}
.sr-only{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}
section{margin:1.5rem 0}
button.secondary{background:var(--surface);color:var(--link);border-color:var(--link)}
button:disabled{opacity:.6;cursor:progress}
fieldset{border:1px solid var(--line);border-radius:4px;padding:.5rem .75rem}
label.choice{font-weight:400;display:flex;gap:.5rem;align-items:center}
label.choice input{width:auto}
.drop{border:2px dashed var(--field);border-radius:6px;padding:1.5rem;text-align:center;background:var(--surface)}
.drop.over{border-color:var(--link);background:var(--drop-over)}
progress{width:100%;height:1rem}
a.action{display:inline-block;margin-right:.5rem}
tr.live td{background:var(--live)}
code{overflow-wrap:anywhere}
code.secret{font-size:1rem;background:var(--surface);border:1px solid var(--field);padding:.15rem .35rem;border-radius:3px}
pre.log{background:#1a1a1a;color:#f0f0f0;padding:.75rem;border-radius:4px;overflow:auto;max-height:32rem;\
white-space:pre-wrap}
.subnav ul{display:flex;flex-wrap:wrap;gap:.25rem 1rem;list-style:none;margin:0;padding:0}
.subnav a[aria-current]{font-weight:700;color:var(--fg)}
.cards{list-style:none;margin:0;padding:0;display:grid;gap:1rem}
.cards>li{background:var(--surface);border:1px solid var(--line);border-radius:4px;padding:.25rem 1rem}
.cards h2{font-size:1.2rem;margin:.5rem 0}
form.row{display:flex;flex-wrap:wrap;align-items:flex-end;gap:.5rem}
form.row select{width:auto}
dt{font-weight:600}
dd{margin:0 0 .5rem}
summary{cursor:pointer}
summary:focus-visible{outline:3px solid var(--focus);outline-offset:2px}
.pager{display:flex;flex-wrap:wrap;justify-content:space-between;gap:.5rem;margin:1rem 0}
dl.summary{display:grid;grid-template-columns:repeat(auto-fit,minmax(13rem,1fr));gap:.5rem 1rem;margin:1rem 0;\
padding:.75rem 1rem;background:var(--surface);border:1px solid var(--line);border-radius:4px}
dl.summary dd{margin:0}
nav.tabs ul{display:flex;flex-wrap:wrap;gap:.25rem;list-style:none;margin:1rem 0 0;padding:0;\
border-bottom:1px solid var(--line)}
nav.tabs a,[role=tab]{display:inline-block;padding:.45rem .8rem;border:1px solid transparent;\
border-bottom:none;border-radius:4px 4px 0 0;text-decoration:none}
[role=tab][aria-selected=true]{background:var(--surface);border-color:var(--line);color:var(--fg);font-weight:600;\
margin-bottom:-1px;border-bottom:1px solid var(--surface)}
.tabbed>section.panel{margin-top:0;padding-top:.25rem}
.tabbed>section.panel>h2{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}
td.actions a.action{white-space:nowrap}
@media (max-width:40rem){
table.cards-on-phone thead{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}
table.cards-on-phone,table.cards-on-phone tbody,table.cards-on-phone tr,table.cards-on-phone td{display:block;\
width:100%}
table.cards-on-phone tr{background:var(--surface);border:1px solid var(--line);border-radius:4px;margin:0 0 .75rem;\
padding:.25rem .75rem}
table.cards-on-phone tr.live{border-color:var(--ok-line)}
table.cards-on-phone td{border:none;padding:.3rem 0 .3rem 6.5rem;position:relative;background:none}
table.cards-on-phone td::before{content:attr(data-label);font-weight:600;position:absolute;left:0;width:6rem}
table.cards-on-phone td.actions a.action{padding:.35rem .8rem;border:1px solid var(--link);border-radius:4px}
}
`;

// The console's one stylesheet: system fonts, AA-contrast colours, a visible focus ring, and a single
// column that fits a 390 px phone.
export const CONSOLE_CSS = `
*,*::before,*::after{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1a1a1a;background:#fafafa}
a{color:#0b57a4}
a:focus-visible,button:focus-visible,input:focus-visible,select:focus-visible,main:focus-visible,\
pre:focus-visible,[tabindex]:focus-visible{outline:3px solid #b45309;outline-offset:2px}
.wrap{max-width:60rem;margin:0 auto;padding:0 1rem}
.skip{position:absolute;left:-999px}
.skip:focus{left:1rem;top:1rem;background:#fff;padding:.5rem;z-index:1}
header.top{background:#17324d;color:#fff}
header.top .wrap{display:flex;flex-wrap:wrap;align-items:center;justify-content:space-between;gap:.5rem;\
padding:.75rem 1rem}
header.top a,header.top button.link{color:#fff}
header.top ul{display:flex;flex-wrap:wrap;gap:1rem;list-style:none;margin:0;padding:0;align-items:center}
.brand{font-weight:700;font-size:1.2rem;text-decoration:none}
main{padding:1rem 0 3rem}
h1{font-size:1.6rem;margin:.5rem 0 1rem}
form.stack{display:grid;gap:.75rem;max-width:28rem}
label{font-weight:600;display:block}
.hint{font-weight:400;color:#4a4a4a;font-size:.9rem;margin:.1rem 0 0}
input,select{font:inherit;padding:.45rem .6rem;border:1px solid #6b6b6b;border-radius:4px;width:100%;background:#fff;\
color:#1a1a1a}
button{font:inherit;padding:.45rem 1rem;border:1px solid #0b57a4;border-radius:4px;background:#0b57a4;color:#fff;\
cursor:pointer}
button.danger{background:#b42318;border-color:#b42318}
button.link{background:none;border:none;padding:0;color:#0b57a4;text-decoration:underline}
form.inline{display:inline}
table{border-collapse:collapse;width:100%}
th,td{text-align:left;padding:.4rem .5rem;border-bottom:1px solid #d0d0d0;vertical-align:top}
.table{overflow-x:auto;position:relative}
.notice{padding:.6rem .8rem;border-radius:4px;border:1px solid}
.notice.error{background:#fdecea;border-color:#b42318;color:#7a1a12}
.notice.ok{background:#e8f5e9;border-color:#2e7d32;color:#1b4d1f}
.notice.warn{background:#fff8e1;border-color:#8a5a00;color:#4d3300}
ul.links{display:flex;flex-wrap:wrap;gap:.5rem 1.5rem;padding:0;list-style:none}
.muted{color:#4a4a4a}
.sr-only{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}
section{margin:1.5rem 0}
button.secondary{background:#fff;color:#0b57a4}
button:disabled{opacity:.6;cursor:progress}
fieldset{border:1px solid #d0d0d0;border-radius:4px;padding:.5rem .75rem}
label.choice{font-weight:400;display:flex;gap:.5rem;align-items:center}
label.choice input{width:auto}
.drop{border:2px dashed #6b6b6b;border-radius:6px;padding:1.5rem;text-align:center;background:#fff}
.drop.over{border-color:#0b57a4;background:#e8f0fb}
progress{width:100%;height:1rem}
a.action{display:inline-block;margin-right:.5rem}
tr.live td{background:#e8f5e9}
code{overflow-wrap:anywhere}
code.secret{font-size:1rem;background:#fff;border:1px solid #6b6b6b;padding:.15rem .35rem;border-radius:3px}
pre.log{background:#1a1a1a;color:#f0f0f0;padding:.75rem;border-radius:4px;overflow:auto;max-height:32rem;\
white-space:pre-wrap}
.subnav ul{display:flex;flex-wrap:wrap;gap:.25rem 1rem;list-style:none;margin:0;padding:0}
.subnav a[aria-current]{font-weight:700;color:#1a1a1a}
.cards{list-style:none;margin:0;padding:0;display:grid;gap:1rem}
.cards>li{background:#fff;border:1px solid #d0d0d0;border-radius:4px;padding:.25rem 1rem}
.cards h2{font-size:1.2rem;margin:.5rem 0}
form.row{display:flex;flex-wrap:wrap;align-items:flex-end;gap:.5rem}
form.row select{width:auto}
dt{font-weight:600}
dd{margin:0 0 .5rem}
summary{cursor:pointer}
summary:focus-visible{outline:3px solid #b45309;outline-offset:2px}
.pager{display:flex;flex-wrap:wrap;justify-content:space-between;gap:.5rem;margin:1rem 0}
`;

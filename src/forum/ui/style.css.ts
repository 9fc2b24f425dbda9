// The one stylesheet of the forum pages: system fonts, a readable measure, light and dark schemes
// from the reader's preference, visible focus, and a layout that folds to one column on phones.
import { AVATAR_PALETTE } from '../avatars.js';

export const FORUM_CSS = `
:root{color-scheme:light dark;--bg:#fbfaf8;--fg:#1d1d1f;--muted:#5f6368;--line:#e2ded8;--card:#fff;--accent:#2f5fd0;\
--accent-fg:#fff;--pin:#a15c00;--warn-bg:#fff4e5;--warn:#8a4b00;--err-bg:#fdecec;--err:#a31515;--ok-bg:#e8f5ec;\
--ok:#1f6b3a;--code:#f2f0ec;--hl-k:#9b1f99;--hl-s:#2b6a1f;--hl-n:#9a4a00;--hl-c:#5d6470;--hl-t:#2a52c0;--hl-a:#85500a}
@media (prefers-color-scheme:dark){:root{--bg:#141517;--fg:#e8e6e3;--muted:#a0a4ab;--line:#2e3136;--card:#1c1e21;\
--accent:#8ab4ff;--accent-fg:#0c1526;--pin:#f0b35a;--warn-bg:#3a2a12;--warn:#f5c77e;--err-bg:#3d1818;--err:#ff9d9d;\
--ok-bg:#15301f;--ok:#8fd6a5;--code:#26292d;--hl-k:#d19af5;--hl-s:#9bd67a;--hl-n:#f0a867;--hl-c:#9aa3b2;\
--hl-t:#8fb3ff;--hl-a:#e6c07b}}
*{box-sizing:border-box}
[hidden]{display:none!important}
html{font-size:100%}
body{margin:0;background:var(--bg);color:var(--fg);font:1rem/1.55 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
a{color:var(--accent)}
a:hover{text-decoration-thickness:2px}
:focus-visible{outline:3px solid var(--accent);outline-offset:2px;border-radius:3px}
.skip{position:absolute;left:-999px;top:0;background:var(--accent);color:var(--accent-fg);padding:.5rem 1rem;z-index:10}
.skip:focus{left:.5rem}
.wrap{max-width:60rem;margin:0 auto;padding:0 1rem}
header.site{border-bottom:1px solid var(--line);background:var(--card)}
header.site .wrap{display:flex;flex-wrap:wrap;gap:.5rem 1.25rem;align-items:center;padding-top:.6rem;\
padding-bottom:.6rem;max-width:80rem}
.brand{font-weight:700;font-size:1.2rem;text-decoration:none;color:var(--fg)}
header.site nav{margin-left:auto}
header.site nav ul{display:flex;flex-wrap:wrap;gap:.5rem 1rem;list-style:none;margin:0;padding:0;align-items:center}
header.site nav.forum-links{margin-left:0}
.count{display:inline-block;min-width:1.4rem;padding:0 .4rem;border-radius:999px;background:var(--accent);\
color:var(--accent-fg);font-size:.8rem;font-weight:700;text-align:center;line-height:1.4rem}
form.search{display:flex;gap:.25rem}
form.search input{width:11rem;padding:.35rem .5rem}
form.search button{padding:.35rem .7rem}
main.wrap{padding-top:1.5rem;padding-bottom:3rem}
h1{font-size:1.6rem;line-height:1.25;margin:.25rem 0 1rem}
h2{font-size:1.2rem;margin:1.75rem 0 .5rem}
.muted,.meta{color:var(--muted);font-size:.9rem}
.crumbs{font-size:.9rem;color:var(--muted);margin:0}
dl.stats{display:flex;flex-wrap:wrap;gap:.5rem 1.75rem;margin:.5rem 0 1rem}
dl.stats div{display:flex;flex-direction:column-reverse}dl.stats dt{color:var(--muted);font-size:.85rem}
dl.stats dd{margin:0;font-size:1.3rem;font-weight:700}
ol.recent-posts{list-style:none;padding:0;margin:0;display:grid;gap:.5rem}
ol.recent-posts .excerpt{margin:.25rem 0;overflow-wrap:anywhere}
.crumbs a{color:var(--muted)}
table.list{width:100%;border-collapse:collapse;background:var(--card);border:1px solid var(--line);border-radius:8px;\
overflow:hidden}
table.list th,table.list td{padding:.65rem .8rem;border-bottom:1px solid var(--line);text-align:left;vertical-align:top}
table.list th{font-size:.8rem;text-transform:uppercase;letter-spacing:.04em;color:var(--muted);font-weight:600}
table.list .num{text-align:right;white-space:nowrap;width:6rem}
table.list tr:last-child td{border-bottom:0}
table.list .title{font-weight:600}
.badge{display:inline-block;font-size:.72rem;font-weight:600;padding:.05rem .45rem;border-radius:999px;\
border:1px solid currentColor;margin-left:.35rem;vertical-align:middle;color:var(--muted)}
.badge.pin{color:var(--pin)}
.badge.new{color:var(--accent);text-decoration:none}
a.badge.new:hover{text-decoration:underline}
.post.new{box-shadow:inset 4px 0 0 var(--accent)}
.on-phone{display:none}
.meta a.category{color:var(--fg);text-decoration:none;font-weight:600;font-size:.8rem;padding:0 .4rem;\
border-left:4px solid var(--accent);background:var(--code)}
.meta a.category:hover{text-decoration:underline}
.posters{display:inline-flex;white-space:nowrap}
.posters .avatar{margin-right:-.3rem;box-shadow:0 0 0 2px var(--card)}
table.list th.posters-col{width:8rem}
ul.latest-topics{list-style:none;margin:.4rem 0 0;padding:0;font-size:.9rem}
ul.latest-topics li{margin:.15rem 0;overflow-wrap:anywhere}
.toolbar-actions{display:flex;gap:.5rem;align-items:center}
.likes{color:var(--muted)}
button.secondary[aria-pressed=true]{background:var(--accent);color:var(--accent-fg)}
details.flag>summary{cursor:pointer;color:var(--muted);display:inline-block}
details.flag[open]{flex-basis:100%}
ol.notifications{list-style:none;margin:0;padding:0;display:grid;gap:.5rem}
ol.notifications li{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:.6rem .9rem;\
display:flex;flex-wrap:wrap;gap:.25rem .75rem;align-items:baseline;overflow-wrap:anywhere}
ol.notifications li.unread{border-color:var(--accent);box-shadow:inset 4px 0 0 var(--accent)}
ol.notifications li form{display:inline}
.flag-note{margin:.4rem 0;font-style:italic;overflow-wrap:anywhere}
ul.flag-reasons{margin:.4rem 0;padding-left:1.1rem}
ul.flag-reasons p{margin:.1rem 0}
.card .flagged{margin:.5rem 0}
.post{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:.8rem 1rem;margin:0 0 .8rem}
.post header{display:flex;flex-wrap:wrap;gap:.25rem .75rem;align-items:baseline;margin-bottom:.35rem}
.post header .author{font-weight:600}
.post .body{overflow-wrap:anywhere}
.post .body img{max-width:100%}
.post .body pre{background:var(--code);padding:.6rem .8rem;border-radius:6px;overflow:auto;position:relative}
.post .body code{background:var(--code);padding:.05rem .25rem;border-radius:4px}
.post .body pre code{padding:0;overflow-wrap:normal}
.post .body pre>button.copy{position:absolute;top:.3rem;right:.3rem;font-size:.75rem;padding:.1rem .5rem;\
background:var(--card);color:var(--accent)}
.hljs-keyword,.hljs-built_in,.hljs-type,.hljs-literal,.hljs-selector-tag{color:var(--hl-k)}
.hljs-string,.hljs-regexp,.hljs-addition{color:var(--hl-s)}
.hljs-number,.hljs-variable,.hljs-deletion{color:var(--hl-n)}
.hljs-comment,.hljs-quote,.hljs-meta{color:var(--hl-c)}
.hljs-title,.hljs-section,.hljs-name{color:var(--hl-t)}
.hljs-attr,.hljs-attribute,.hljs-property,.hljs-params{color:var(--hl-a)}
.post .body table{display:block;max-width:100%;overflow-x:auto;border-collapse:collapse;margin:.5rem 0;\
overflow-wrap:normal}
.post .body th{white-space:nowrap}
.post .body th,.post .body td{border:1px solid var(--line);padding:.3rem .6rem;text-align:left;vertical-align:top}
.post .body th{background:var(--code)}
.post .body blockquote{margin:.5rem 0;padding-left:.8rem;border-left:3px solid var(--line);color:var(--muted)}
.mail-html{overflow-x:auto}
.mail-html table{border-collapse:collapse;margin:.5rem 0}
.mail-html td,.mail-html th{border:1px solid var(--line);padding:.25rem .5rem;vertical-align:top;text-align:left}
details.mail-whole>summary{cursor:pointer;color:var(--accent)}
.post.deleted{color:var(--muted);font-style:italic}
.actions{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center;margin-top:.5rem;font-size:.9rem}
.actions form{display:inline}
ol.thread,ol.replies{list-style:none;margin:0;padding:0}
ol.replies{margin-left:1.25rem;padding-left:.75rem;border-left:2px solid var(--line)}
details.reply>summary{cursor:pointer;color:var(--accent);display:inline-block}
details.reply[open]{flex-basis:100%}
form.stack{display:grid;gap:.8rem;max-width:40rem}
form.stack.wide{max-width:none}
label{font-weight:600;display:block;margin-bottom:.2rem}
input[type=text],input[type=email],input[type=password],input[type=search],input[type=url],input[type=number],\
input[type=datetime-local],input[type=date],textarea,select{font:inherit;color:inherit;background:var(--bg);\
border:1px solid var(--line);border-radius:6px;padding:.5rem .6rem;width:100%}
textarea{min-height:9rem;resize:vertical}
button,.button{font:inherit;font-weight:600;border:1px solid var(--accent);background:var(--accent);\
color:var(--accent-fg);border-radius:6px;padding:.45rem .9rem;cursor:pointer;text-decoration:none;display:inline-block}
button.link{background:none;border:0;color:var(--accent);padding:0;font-weight:400;text-decoration:underline}
button.secondary{background:transparent;color:var(--accent)}
button.danger{background:transparent;color:var(--err);border-color:var(--err)}
.hint{font-weight:400;color:var(--muted);font-size:.85rem}
.notice{padding:.7rem 1rem;border-radius:8px;margin:0 0 1rem;border:1px solid currentColor}
.notice.error{background:var(--err-bg);color:var(--err)}
.notice.ok{background:var(--ok-bg);color:var(--ok)}
.notice.warn{background:var(--warn-bg);color:var(--warn)}
.token{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;word-break:break-all;background:var(--code);\
padding:.4rem .6rem;border-radius:6px;display:block}
.pager{display:flex;gap:1rem;justify-content:space-between;margin:1rem 0}
.tabs{display:flex;gap:1rem;margin:0 0 1rem}
.tabs a[aria-current=page]{font-weight:700;color:var(--fg);text-decoration:none}
.toolbar{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:center;justify-content:space-between;margin-bottom:1rem}
.toolbar h1{margin:0}
.admin-tabs ul{display:flex;flex-wrap:wrap;gap:.25rem 1.25rem;list-style:none;margin:0 0 1.25rem;padding:0;\
border-bottom:1px solid var(--line)}
.admin-tabs a{display:inline-block;padding:.35rem 0;text-decoration:none}
.admin-tabs a[aria-current=page]{color:var(--fg);font-weight:700;border-bottom:3px solid var(--accent)}
ul.checklist,ul.cards,ul.links{list-style:none;margin:0;padding:0}
ul.checklist li{display:flex;gap:.75rem;align-items:flex-start;padding:.65rem .8rem;background:var(--card);\
border:1px solid var(--line);border-radius:8px;margin-bottom:.5rem}
ul.checklist .tick{flex:none;width:1.5rem;height:1.5rem;border-radius:50%;border:2px solid var(--line);display:grid;\
place-items:center;font-weight:700;line-height:1}
ul.checklist li.done .tick{background:var(--ok);border-color:var(--ok);color:var(--card)}
ul.checklist li.done>div>a{color:var(--muted)}
ul.links li{margin:.35rem 0}
ul.cards li.card{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:.7rem .9rem;\
margin-bottom:.6rem}
.card-head{display:flex;flex-wrap:wrap;gap:.25rem;align-items:baseline}
.badge.ban{color:var(--err)}
details.panel,section.panel{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:.8rem 1rem;\
margin:1rem 0}
section.panel h2{margin-top:0}
section.panel.pending{border-color:var(--warn)}
details.panel>summary{cursor:pointer;font-weight:600;color:var(--accent)}
details.panel[open]>summary{margin-bottom:.8rem}
fieldset{border:1px solid var(--line);border-radius:8px;padding:.8rem 1rem;margin:0;display:grid;gap:.8rem;min-width:0}
legend{font-weight:700;padding:0 .3rem}
form.settings{max-width:44rem}
label.check{font-weight:400;display:flex;gap:.5rem;align-items:center}
.field-error{display:block;color:var(--err);font-size:.85rem;font-weight:600}
[aria-invalid=true]{border-color:var(--err)!important}
form.inline{display:inline-flex;gap:.35rem;align-items:center}
form.inline select{width:auto;padding:.3rem .5rem}
button.small{padding:.25rem .6rem;font-size:.85rem}
a.danger{color:var(--err)}
.search-members{margin-bottom:.5rem;max-width:30rem}
.search-members .row{display:flex;gap:.25rem}
fieldset.relation [role=radiogroup]{display:grid;gap:.3rem}
fieldset.relation label.check span{overflow-wrap:anywhere}
.relation-search .row{display:flex;gap:.25rem}
form.filters{display:flex;flex-wrap:wrap;gap:.6rem;align-items:flex-end;margin-bottom:.8rem}
form.filters fieldset.range{display:flex;gap:.4rem;padding:.3rem .6rem}
form.filters fieldset.range input{max-width:10rem}
.table-scroll{overflow-x:auto;position:relative}
.actions.bulk{margin-bottom:.5rem}
.markdown-toolbar{display:flex;flex-wrap:wrap;gap:.3rem;margin-bottom:.3rem}
.markdown-toolbar[hidden],.markdown-preview[hidden]{display:none}
.markdown-panes{display:grid;gap:.8rem}
.markdown-panes textarea{min-height:14rem}
.markdown-preview{margin:0;min-width:0}
.markdown-preview h3{margin:0 0 .3rem}
@media (min-width:56rem){.markdown-field.live .markdown-panes{grid-template-columns:1fr 1fr;align-items:start}}
.relation-search input{min-width:0;flex:1}
ul.media-grid{list-style:none;margin:0;padding:0;display:grid;gap:.8rem;\
grid-template-columns:repeat(auto-fill,minmax(min(100%,12rem),1fr))}
.media-card{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:.6rem;min-width:0;\
overflow-wrap:anywhere}
.media-card p{margin:.3rem 0}
.media-thumb{display:flex;align-items:center;justify-content:center;aspect-ratio:4/3;background:var(--code);\
border-radius:6px;overflow:hidden}
.media-thumb img{max-width:100%;max-height:100%;width:auto;height:auto;object-fit:contain}
.media-thumb.single{max-width:24rem}
.media-thumb.small{width:6rem;flex:none}
.media-thumb[hidden]{display:none}
.file-tile{font-weight:700;color:var(--muted);font-size:1.4rem}
.media-alt .row{display:flex;gap:.25rem}
.media-alt input{min-width:0;flex:1}
.media-choice{display:flex;gap:.5rem;align-items:center;flex-wrap:wrap}
.media-choice select{flex:1 1 12rem;width:12rem;min-width:0}
dialog.media-dialog{width:min(48rem,calc(100vw - 2rem));max-height:calc(100vh - 2rem);background:var(--bg);\
color:var(--fg);border:1px solid var(--line);border-radius:8px;padding:1rem}
dialog.media-dialog::backdrop{background:rgba(0,0,0,.45)}
dialog.media-dialog h2{margin-top:0;font-size:1.1rem}
ul.media-grid.picker{grid-template-columns:repeat(auto-fill,minmax(min(100%,9rem),1fr));margin:.6rem 0}
ul.media-grid.picker li[hidden]{display:none}
button.media-pick{display:grid;gap:.3rem;width:100%;height:100%;background:var(--card);color:var(--fg);\
border:1px solid var(--line);font-weight:400;text-align:left;overflow-wrap:anywhere;padding:.4rem}
button.media-pick img{width:100%;height:6rem;object-fit:contain;background:var(--code)}
button.media-pick[aria-pressed=true]{border:3px solid var(--accent)}
.upload-status{margin:.3rem 0;font-size:.9rem}
.upload-status.error{color:var(--err)}
.upload-status progress{display:block;width:100%;max-width:20rem}
details.columns{margin:.5rem 0}
details.columns>summary{cursor:pointer;color:var(--accent);display:inline-block}
details.columns fieldset{display:flex;flex-wrap:wrap;gap:.2rem 1rem}
td.value,table.list th code,form.settings label,form.settings code,form.settings .hint{overflow-wrap:anywhere}
form.settings input,form.settings select,form.settings textarea{max-width:100%;min-width:0}
.field-row{display:grid;gap:.4rem;padding-top:.6rem;border-top:1px solid var(--line)}
table.list tbody th{text-transform:none;letter-spacing:0;color:var(--fg);font-size:.9rem}
.desk-ticket{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,18rem);gap:1.25rem;align-items:start}
.desk-ticket section.panel{margin:0 0 1rem}
.post.note,section.panel.note{border-color:var(--warn);background:var(--warn-bg)}
.badge.note,.badge.risk{color:var(--warn)}
.badge.late{color:var(--err)}
body:has(table.desk-list,form.desk-filters) .wrap{max-width:80rem}
table.desk-list td.subject a.title{display:block;max-width:22rem;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
table.desk-list td.requester span{display:block;max-width:11rem;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
table.desk-list td.sla .exact{display:block;font-size:.8rem}
table.desk-list td.pick input{width:1.1rem;height:1.1rem}
.badge.priority{margin-left:0}
.badge.priority-low{color:var(--muted)}
.badge.priority-normal{color:var(--accent)}
.badge.priority-high{color:var(--warn);background:var(--warn-bg)}
.badge.priority-urgent{color:var(--card);background:var(--err);border-color:var(--err)}
form.desk-filters{margin:0 0 1rem;padding:.8rem;border:1px solid var(--line);border-radius:8px;background:var(--card)}
form.desk-filters .row{display:flex;gap:.4rem}
form.desk-filters details.filters{margin-top:.5rem}
form.desk-filters details.filters>summary{cursor:pointer;color:var(--accent)}
form.desk-filters .grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(10.5rem,1fr));gap:.5rem .8rem;align-items:end;margin-top:.5rem}
form.desk-filters label,form.desk-bulk label{font-size:.85rem}
form.desk-bulk fieldset{display:flex;flex-wrap:wrap;gap:.5rem .8rem;align-items:end;border:1px solid var(--line);border-radius:8px;padding:.5rem .8rem;margin:0 0 .8rem;min-width:0}
form.desk-bulk fieldset>div{flex:1 1 9rem;min-width:0}
form.desk-bulk legend{font-weight:600;font-size:.9rem}
.list-head{display:flex;flex-wrap:wrap;justify-content:space-between;gap:.5rem 1rem;align-items:center;margin-bottom:.5rem}
.list-head p{margin:0}
details.save-view>summary{cursor:pointer;color:var(--accent)}
details.save-view form{margin-top:.4rem;flex-wrap:wrap}
details.save-view input{width:14rem;max-width:100%}
nav.saved-views{flex-wrap:wrap;gap:.5rem;align-items:baseline}
nav.saved-views ul{display:flex;flex-wrap:wrap;gap:.25rem 1rem;list-style:none;margin:0;padding:0}
nav.saved-views a[aria-current=page]{font-weight:700;color:var(--fg)}
button:disabled,button[aria-disabled=true]{opacity:.55;cursor:not-allowed;border-style:dashed;background:transparent;color:var(--muted);border-color:var(--muted)}
table.desk-list tr.selected td{background:var(--code)}
table.desk-list tr.selected td:first-child{box-shadow:inset 4px 0 0 var(--accent)}
details.keys>summary{cursor:pointer;color:var(--accent)}
pre.canned-body{white-space:pre-wrap;overflow-wrap:anywhere;background:var(--code);padding:.5rem .7rem;border-radius:6px}
figure.chart{margin:0 0 1rem;--s0:var(--accent);--s1:#1f8a5b;--s2:#c2410c}
@media (prefers-color-scheme:dark){figure.chart{--s1:#5fd39a;--s2:#ff9a5c}}
figure.chart .scroll,div.scroll{overflow-x:auto;max-width:100%}
figure.chart svg{display:block;font-size:11px;font-family:inherit}
figure.chart .grid{stroke:var(--line)}
figure.chart .axis{stroke:var(--muted)}
figure.chart text{fill:var(--muted)}
figure.chart .s0{fill:var(--s0);background:var(--s0)}
figure.chart .s1{fill:var(--s1);background:var(--s1)}
figure.chart .s2{fill:var(--s2);background:var(--s2)}
figure.chart polyline.line{fill:none;stroke:var(--fg);stroke-width:2}
figure.chart circle.line{fill:var(--fg)}
figure.chart ul.legend{display:flex;flex-wrap:wrap;gap:.25rem 1rem;list-style:none;margin:.4rem 0 0;padding:0;font-size:.9rem}
figure.chart .swatch{display:inline-block;width:.9rem;height:.9rem;border-radius:2px;margin-right:.35rem;vertical-align:-.1rem}
figure.chart .swatch.line{height:.2rem;vertical-align:.2rem;background:var(--fg)}
details.keys dl,dl.facts{display:grid;grid-template-columns:auto minmax(0,1fr);gap:.3rem .8rem;margin:.5rem 0 0}
dl.facts dt{font-weight:600}
dl.facts dd,details.keys dd{margin:0}
kbd{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:.85em;border:1px solid var(--line);\
border-bottom-width:2px;border-radius:4px;padding:0 .3rem;background:var(--card);color:var(--fg)}
.draft-ai{margin-top:.8rem}
form.composer .field{position:relative}
form.composer input[type=file]{max-width:100%;font:inherit}
form.composer .attach{overflow-wrap:anywhere}
form.composer .attach .hint{display:block}
section.preview{background:var(--card);border:1px dashed var(--line);border-radius:8px;padding:.6rem .9rem;\
overflow-wrap:anywhere}
section.preview h3{margin:0 0 .35rem;font-size:.9rem;color:var(--muted)}
section.preview img,blockquote.replying-to img{max-width:100%}
ul.mentions{list-style:none;margin:.2rem 0 0;padding:.2rem;background:var(--card);border:1px solid var(--line);\
border-radius:6px;max-width:20rem;box-shadow:0 4px 12px rgba(0,0,0,.12)}
ul.mentions li{padding:.3rem .6rem;border-radius:4px;cursor:pointer}
ul.mentions li[aria-selected=true]{background:var(--accent);color:var(--accent-fg)}
blockquote.replying-to{margin:0 0 1rem;padding:.5rem .9rem;border-left:3px solid var(--line);background:var(--card);\
overflow-wrap:anywhere}
.in-reply{font-size:.85rem}
p.continue{margin:.25rem 0 .8rem 1.25rem}
ol.history{margin:0;padding-left:1.1rem;font-size:.9rem;display:grid;gap:.35rem;overflow-wrap:anywhere}
footer.site{border-top:1px solid var(--line);padding:1rem 0;color:var(--muted);font-size:.85rem}
.sr-only{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
.trap{position:absolute;left:-10000px;width:1px;height:1px;overflow:hidden}
.avatar{display:inline-flex;align-items:center;justify-content:center;width:1.5rem;height:1.5rem;border-radius:50%;\
font-size:.65rem;font-weight:700;color:#fff;vertical-align:middle;margin-right:.4rem;object-fit:cover;flex:none;\
letter-spacing:0}
.avatar.large{width:4rem;height:4rem;font-size:1.4rem}
${AVATAR_PALETTE.map((colour, i) => `.avatar-c${i}{background:${colour}}`).join('')}
h1 .avatar.large{margin-right:.6rem}
details.sanction fieldset{border:1px solid var(--line);border-radius:8px;padding:.5rem .8rem;margin:0;min-width:0}
details.sanction fieldset label{display:block;margin:.25rem 0}
details.sanction select{max-width:100%}
details.sanction[open]{flex-basis:100%}
details.sanction>summary{cursor:pointer;color:var(--accent);display:inline-block}
.standing{margin:1rem 0}
@media (max-width:40rem){header.site .wrap{gap:.35rem 1rem;padding-top:.5rem;padding-bottom:.5rem}\
header.site nav.account-links{order:1}header.site nav.forum-links{order:2;width:100%}form.search{order:3;width:100%}\
header.site nav ul{gap:.25rem .9rem}table.list.admin thead{display:none}\
table.list.admin tr,table.list.admin td,table.list.admin th{display:block;border:0}\
table.list.admin tr{border-bottom:1px solid var(--line);padding:.4rem 0}\
table.list.admin td,table.list.admin th{padding:.2rem .8rem}\
table.list.admin td.num,table.list.admin td:empty{display:none}form.search input{width:100%}\
table.list td.num,table.list th.num,table.list .posters-col{display:none}.on-phone{display:inline}ol.replies{margin-left:.4rem;\
padding-left:.5rem}.desk-ticket{grid-template-columns:minmax(0,1fr)}\
table.desk-list td[data-label]::before{content:attr(data-label) ": ";color:var(--muted);font-size:.85rem}\
table.desk-list,table.desk-list tbody{display:block}table.desk-list td.subject a.title,\
table.desk-list td.requester span{max-width:none}table.desk-list td.requester span{display:inline}}
`;

// A static site's releases in the console: the summary at the top of its page, the releases table
// (cards on a phone) with what each release is made of and who made it, and the form that shares a
// release's preview through a signed, expiring link.
import type { SiteOut } from '../core/sites/schemas.js';
import type { BuildRow } from '../deploy/builds/service.js';
import { PREVIEW_LINK_CHOICES } from '../deploy/preview-links.js';
import { releaseOrigin } from '../deploy/presenters.js';
import type { ReleaseRow, SiteAliasRow } from '../deploy/service.js';
import { html, type SafeHtml } from '../lib/html.js';
import type { ConsoleContext } from './context.js';
import { csrfField, time } from './views.js';

/** What the releases section and the summary read. */
export interface ReleasesData {
  releases: ReleaseRow[];
  aliases: SiteAliasRow;
  rollbackTo: string | null;
  builds: BuildRow[];
  previewUrl: (releaseId: string) => string;
  stageUrl: string;
  /** Show the preview password (asked for with ?password=show). */
  showPassword: boolean;
  /** The viewer may deploy (the developer role): promote, stage, roll back, share previews. */
  canDeploy: boolean;
}

export function bytes(size: number): string {
  if (size < 1024) return `${size} B`;
  if (size < 1024 * 1024) return `${(size / 1024).toFixed(1)} KiB`;
  return `${(size / 1024 / 1024).toFixed(1)} MiB`;
}

function duration(ms: number): string {
  const seconds = Math.round(ms / 100) / 10;
  if (seconds < 60) return `${seconds} s`;
  return `${Math.floor(seconds / 60)} min ${Math.round(seconds % 60)} s`;
}

const ORIGIN_WORDS = { upload: 'Uploaded', build: 'Built from Markdown', git: 'Built from git' } as const;

/** How a release was made, in words: origin, branch and commit, who. */
function madeBy(release: ReleaseRow): SafeHtml {
  const git = release.git
    ? html`<br><code>${release.git.branch}</code> at <code>${release.git.commit.slice(0, 7)}</code>`
    : '';
  const build = release.buildId
    ? html` (<a href="/sites/${release.siteId}/builds/${release.buildId}">build<span class="sr-only"> of ${release.id}</span></a>)`
    : '';
  return html`${ORIGIN_WORDS[releaseOrigin(release)]}${build}${git}${
    release.createdBy ? html`<br><span class="muted">by ${release.createdBy}</span>` : ''
  }`;
}

function releaseStatus(release: ReleaseRow, aliases: SiteAliasRow): string {
  const parts: string[] = [];
  if (release.id === aliases.liveReleaseId) parts.push('Live');
  if (release.id === aliases.stageReleaseId) parts.push('Staged');
  if (!release.promotable) parts.push('Preview only');
  return parts.join(', ');
}

function releaseActions(site: SiteOut, release: ReleaseRow, aliases: SiteAliasRow): SafeHtml {
  const base = `/sites/${site.id}/releases/${release.id}`;
  const promote =
    release.promotable && release.id !== aliases.liveReleaseId
      ? html`<a class="action" href="${base}/promote">Promote<span class="sr-only"> ${release.id}</span></a>`
      : '';
  const stage =
    release.id === aliases.stageReleaseId
      ? html`<a class="action" href="/sites/${site.id}/unstage">Unstage<span class="sr-only"> ${release.id}</span></a>`
      : html`<a class="action" href="${base}/stage">Stage<span class="sr-only"> ${release.id}</span></a>`;
  return html`${promote} ${stage}`;
}

/** The facts at the top of a static site's page: what is live, staged, newest, and how the last build went. */
export function releasesSummary(site: SiteOut, data: ReleasesData): SafeHtml {
  const { aliases } = data;
  const newest = data.releases[0];
  const build = data.builds[0];
  return html`<dl class="summary">
<div><dt>Production</dt><dd>${
    aliases.liveReleaseId
      ? html`<code>${aliases.liveReleaseId}</code> at <a href="${site.url}">${site.url}</a>`
      : 'nothing live yet'
  }</dd></div>
<div><dt>Staged</dt><dd>${
    aliases.stageReleaseId
      ? html`<code>${aliases.stageReleaseId}</code> at <a href="${data.stageUrl}">${data.stageUrl}</a>`
      : 'nothing'
  }</dd></div>
<div><dt>Newest release</dt><dd>${
    newest
      ? html`<code>${newest.id}</code>, ${time(newest.createdAt)}: \
<a href="${data.previewUrl(newest.id)}">preview<span class="sr-only"> ${newest.id}</span></a>`
      : 'none yet'
  }</dd></div>
<div><dt>Last build</dt><dd>${
    build
      ? html`<a href="/sites/${site.id}/builds/${build.id}">${build.state}<span class="sr-only"> build ${build.id}</span>\
</a>, ${time(build.createdAt)}`
      : 'none yet'
  }</dd></div>
</dl>`;
}

function shareForm(ui: ConsoleContext, site: SiteOut, releases: ReleaseRow[]): SafeHtml {
  return html`<h3 id="share-h">Share a preview</h3>
<p class="hint" id="share-hint">A link that opens one release's preview without the password until it expires. \
Anyone holding it can look; make it no longer than you need.</p>
<form class="row" method="post" action="/sites/${site.id}/preview-links" aria-describedby="share-hint">\
${csrfField(ui)}
<div><label for="share-release">Release</label><select id="share-release" name="release">${releases.map(
    (release) => html`<option value="${release.id}">${release.id}</option>`,
  )}</select></div>
<div><label for="share-expires">Works for</label><select id="share-expires" name="expires">${PREVIEW_LINK_CHOICES.map(
    ([seconds, words]) =>
      html`<option value="${String(seconds)}"${seconds === 86400 ? html` selected` : ''}>${words}</option>`,
  )}</select></div>
<div><button type="submit">Make a preview link</button></div>
</form>`;
}

/** A new preview password, for a password or a shared link that reached the wrong people. */
function passwordForm(ui: ConsoleContext, site: SiteOut): SafeHtml {
  return html`<form method="post" action="/sites/${site.id}/preview-password" aria-describedby="password-hint">\
${csrfField(ui)}<p class="hint" id="password-hint">A new password stops the old one and every shared preview link.</p>
<button type="submit" class="secondary">Change the preview password</button></form>`;
}

export function releasesBody(ui: ConsoleContext, site: SiteOut, data: ReleasesData): SafeHtml {
  const { aliases } = data;
  const rollback =
    data.rollbackTo && data.canDeploy
      ? html`<p><a class="action" href="/sites/${site.id}/rollback">Roll back to ${data.rollbackTo}</a></p>`
      : '';
  const rows = data.releases.map(
    (release) => html`<tr${release.id === aliases.liveReleaseId ? html` class="live"` : ''}>\
<td data-label="Release"><code>${release.id}</code><br>${time(release.createdAt)}</td>
<td data-label="Made">${madeBy(release)}</td>
<td data-label="Content">${release.fileCount} files, ${bytes(release.size)}${
      release.buildMs !== null ? html`<br><span class="muted">built in ${duration(release.buildMs)}</span>` : ''
    }</td>
<td data-label="Status">${releaseStatus(release, aliases) || '—'}</td>
<td data-label="Preview"><a href="${data.previewUrl(release.id)}">Preview<span class="sr-only"> ${release.id}</span></a></td>${
      data.canDeploy
        ? html`<td data-label="Actions" class="actions">${releaseActions(site, release, aliases)}</td>`
        : ''
    }</tr>`,
  );
  const table = data.releases.length
    ? html`<div class="table"><table class="cards-on-phone"><thead><tr><th scope="col">Release</th>\
<th scope="col">Made</th><th scope="col">Content</th><th scope="col">Status</th><th scope="col">Preview</th>\
${data.canDeploy ? html`<th scope="col">Actions</th>` : ''}</tr></thead><tbody>${rows}</tbody></table></div>${
        data.canDeploy ? shareForm(ui, site, data.releases) : ''
      }`
    : html`<p>No releases yet. <a href="#upload-h">Upload a folder or an archive</a>, or \
<a href="#repo-h">connect a repository</a>; each upload or build becomes a release you can preview, then promote.</p>`;
  const password = html`${
    data.showPassword
      ? html`<p>User <code>preview</code>, password <code id="preview-password">${aliases.previewPassword}</code> \
<button type="button" class="secondary" data-copy="preview-password" hidden>Copy</button></p>`
      : html`<p><a href="/sites/${site.id}?password=show#releases-h">Show the preview password</a></p>`
  }${data.canDeploy ? passwordForm(ui, site) : ''}`;
  return html`<p>Live: ${
    aliases.liveReleaseId
      ? html`<code>${aliases.liveReleaseId}</code> at <a href="${site.url}">${site.url}</a>`
      : 'nothing yet'
  }. Staged: ${
    aliases.stageReleaseId
      ? html`<code>${aliases.stageReleaseId}</code> at <a href="${data.stageUrl}">${data.stageUrl}</a>`
      : 'nothing'
  }.</p>
<p class="hint">Previews and the stage address ask for a user name and password, or take a shared preview link.</p>
${password}${rollback}${table}`;
}

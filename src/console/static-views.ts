// The static site's sections of the console: releases with their previews and aliases, the upload
// form, builds and their logs, the connected repository and deploy tokens; and the confirmation
// pages that name the release an alias change will serve.
import type { CredentialRow } from '../core/credentials/tables.js';
import type { SiteOut } from '../core/sites/schemas.js';
import type { BuildLogRow, BuildRow } from '../deploy/builds/service.js';
import type { ReleaseRow, SiteAliasRow } from '../deploy/service.js';
import { html, type SafeHtml } from '../lib/html.js';
import type { ConsoleContext } from './context.js';
import { csrfField, notice, time } from './views.js';

export interface StaticSiteData {
  releases: ReleaseRow[];
  aliases: SiteAliasRow;
  rollbackTo: string | null;
  builds: BuildRow[];
  connection: { repository: string; branch: string; path: string; kind: string; webhookUrl: string } | undefined;
  tokens: CredentialRow[];
  previewUrl: (releaseId: string) => string;
  stageUrl: string;
  /** Show the preview password (asked for with ?password=show). */
  showPassword: boolean;
}

/** A secret the server shows this once: a deploy token or a webhook secret. */
export function shownOnce(label: string, value: string, id: string): SafeHtml {
  return html`<div class="notice ok once" role="status"><p>${label} Copy it now: it is not shown again.</p>
<p><code id="${id}" class="secret">${value}</code> \
<button type="button" class="secondary" data-copy="${id}" hidden>Copy</button></p></div>`;
}

function bytes(size: number): string {
  if (size < 1024) return `${size} B`;
  if (size < 1024 * 1024) return `${(size / 1024).toFixed(1)} KiB`;
  return `${(size / 1024 / 1024).toFixed(1)} MiB`;
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

function releasesSection(site: SiteOut, data: StaticSiteData): SafeHtml {
  const { aliases } = data;
  const rollback = data.rollbackTo
    ? html`<p><a class="action" href="/sites/${site.id}/rollback">Roll back to ${data.rollbackTo}</a></p>`
    : '';
  const rows = data.releases.map(
    (release) => html`<tr${
      release.id === aliases.liveReleaseId ? html` class="live"` : ''
    }><td><code>${release.id}</code><br>${time(release.createdAt)}</td><td>${release.source}</td>
<td>${release.fileCount} files, ${bytes(release.size)}</td><td>${releaseStatus(release, aliases)}</td>
<td><a href="${data.previewUrl(release.id)}">Preview<span class="sr-only"> ${release.id}</span></a></td>\
<td>${releaseActions(site, release, aliases)}</td></tr>`,
  );
  const table = data.releases.length
    ? html`<div class="table"><table><thead><tr><th scope="col">Release</th><th scope="col">Source</th>\
<th scope="col">Content</th><th scope="col">Status</th><th scope="col">Preview</th>\
<th scope="col">Actions</th></tr></thead><tbody>${rows}</tbody></table></div>`
    : html`<p>No releases yet. Upload a folder or an archive above; \
it becomes a release you can preview, then promote.</p>`;
  const password = data.showPassword
    ? html`<p>User <code>preview</code>, password <code id="preview-password">${aliases.previewPassword}</code> \
<button type="button" class="secondary" data-copy="preview-password" hidden>Copy</button></p>`
    : html`<p><a href="/sites/${site.id}?password=show#releases-h">Show the preview password</a></p>`;
  return html`<section aria-labelledby="releases-h"><h2 id="releases-h">Releases</h2>
<p>Live: ${
    aliases.liveReleaseId
      ? html`<code>${aliases.liveReleaseId}</code> at <a href="${site.url}">${site.url}</a>`
      : 'nothing yet'
  }. Staged: ${
    aliases.stageReleaseId
      ? html`<code>${aliases.stageReleaseId}</code> at <a href="${data.stageUrl}">${data.stageUrl}</a>`
      : 'nothing'
  }.</p>
<p class="hint">Previews and the stage address ask for a user name and password.</p>
${password}${rollback}${table}</section>`;
}

function uploadSection(ui: ConsoleContext, site: SiteOut): SafeHtml {
  return html`<section aria-labelledby="upload-h"><h2 id="upload-h">Upload a release</h2>
<form class="stack upload" method="post" action="/sites/${site.id}/upload" enctype="multipart/form-data" data-upload>\
${csrfField(ui)}
<fieldset><legend>The files are</legend>
<label class="choice"><input type="radio" name="mode" value="files" checked> the site as it is served</label>
<label class="choice">\
<input type="radio" name="mode" value="markdown"> Markdown to build as a docs site</label></fieldset>
<div class="drop" data-drop hidden><p>Drop a folder or an archive here</p></div>
<div><label for="folder">A folder</label><input id="folder" name="files" type="file" webkitdirectory multiple></div>
<div><label for="archive">Or an archive (.tar.gz, .tgz or .tar)</label>\
<input id="archive" name="files" type="file" accept=".tar.gz,.tgz,.tar,application/gzip,application/x-tar"></div>
<div><progress max="100" value="0" hidden aria-label="Upload progress"></progress> \
<span class="hint" data-progress aria-live="polite"></span></div>
<div><button type="submit">Upload</button></div>
</form>
<p class="hint">A new release is not live until you promote it. The files must be plain files; \
a folder is uploaded with the folders inside it.</p></section>`;
}

function buildsSection(site: SiteOut, builds: BuildRow[]): SafeHtml {
  if (builds.length === 0)
    return html`<section aria-labelledby="builds-h"><h2 id="builds-h">Builds</h2>\
<p>No builds yet. Upload Markdown above, or connect a repository below to build on every push.</p></section>`;
  return html`<section aria-labelledby="builds-h"><h2 id="builds-h">Builds</h2>
<div class="table"><table><thead><tr><th scope="col">Build</th><th scope="col">State</th><th scope="col">Trigger</th>\
<th scope="col">Release</th></tr></thead><tbody>
${builds.map(
  (b) =>
    html`<tr><td><a href="/sites/${site.id}/builds/${b.id}">${b.id}</a><br>${time(b.createdAt)}</td><td>${b.state}</td>\
<td>${b.trigger}${
      b.git ? html` <code>${b.git.branch}</code>` : ''
    }</td><td>${b.releaseId ? html`<code>${b.releaseId}</code>` : ''}</td></tr>`,
)}
</tbody></table></div></section>`;
}

function repositorySection(ui: ConsoleContext, site: SiteOut, connection: StaticSiteData['connection']): SafeHtml {
  if (connection) {
    return html`<section aria-labelledby="repo-h"><h2 id="repo-h">Repository</h2>
<p>Connected to <code>${connection.repository}</code>: pushes to \
<code>${connection.branch}</code> build promotable releases, other branches preview-only ones (${
      connection.kind === 'markdown' ? 'built as a docs site' : 'served as they are'
    }${connection.path ? html`, from the folder <code>${connection.path}</code>` : ''}).</p>
<p>Webhook URL: <code>${connection.webhookUrl}</code> (content type application/json, push events).</p>
<form method="post" action="/sites/${site.id}/repository/disconnect">\
${csrfField(ui)}<button type="submit" class="danger">Disconnect the repository</button></form></section>`;
  }
  return html`<section aria-labelledby="repo-h"><h2 id="repo-h">Repository</h2>
<p>Connect a repository to build on every push. Nothing is promoted by itself: you promote the release a push built.</p>
<form class="stack" method="post" action="/sites/${site.id}/repository">${csrfField(ui)}
<div><label for="repository">Repository</label>\
<input id="repository" name="repository" required maxlength="201" placeholder="owner/name" \
aria-describedby="repository-hint">\
<p class="hint" id="repository-hint">Written owner/name, on the git host this server fetches from.</p></div>
<div><label for="branch">Branch</label><input id="branch" name="branch" required maxlength="200" value="main"></div>
<div><label for="repo-path">Folder inside the repository (optional)</label>\
<input id="repo-path" name="path" maxlength="1024"></div>
<div><label for="repo-kind">The folder holds</label><select id="repo-kind" name="kind">\
<option value="static">the site as it is served</option>\
<option value="markdown">Markdown to build as a docs site</option></select></div>
<div><button type="submit">Connect</button></div>
</form></section>`;
}

function tokensSection(ui: ConsoleContext, site: SiteOut, tokens: CredentialRow[]): SafeHtml {
  const list = tokens.length
    ? html`<div class="table"><table><thead><tr><th scope="col">Name</th><th scope="col">Created</th>\
<th scope="col">Last used</th><th scope="col"><span class="sr-only">Revoke</span></th></tr></thead><tbody>
${tokens.map(
  (t) => html`<tr><td>${t.name}</td><td>${time(t.createdAt)}</td><td>${t.lastUsedAt ? time(t.lastUsedAt) : 'never'}</td>
<td>\
<form method="post" action="/sites/${site.id}/tokens/${t.id}/revoke">\
${csrfField(ui)}<button type="submit" class="danger">Revoke\
<span class="sr-only"> ${t.name}</span></button></form></td></tr>`,
)}
</tbody></table></div>`
    : html`<p>No deploy tokens. Mint one for the <code>blume deploy</code> command, a CI job or an agent.</p>`;
  return html`<section aria-labelledby="tokens-h"><h2 id="tokens-h">Deploy tokens</h2>${list}
<form class="stack" method="post" action="/sites/${site.id}/tokens">${csrfField(ui)}
<div><label for="token-name">Token name</label>\
<input id="token-name" name="name" required maxlength="100" placeholder="ci"></div>
<div><button type="submit">Mint a deploy token</button></div>
</form></section>`;
}

/** The sections of a static site's page, between its heading and the delete form. */
export function staticSections(ui: ConsoleContext, site: SiteOut, data: StaticSiteData): SafeHtml {
  return html`${releasesSection(site, data)}${uploadSection(ui, site)}${buildsSection(site, data.builds)}\
${repositorySection(ui, site, data.connection)}${tokensSection(ui, site, data.tokens)}`;
}

export type AliasAction = 'promote' | 'stage' | 'unstage' | 'rollback';

const CONFIRM: Record<AliasAction, { verb: string; says: (release: string, site: SiteOut) => string }> = {
  promote: {
    verb: 'Promote',
    says: (release, site) => `Release ${release} becomes live at ${site.url} at once, on every node.`,
  },
  stage: { verb: 'Stage', says: (release) => `Release ${release} is served at the stage address.` },
  unstage: { verb: 'Unstage', says: (release) => `Release ${release} is no longer served at the stage address.` },
  rollback: {
    verb: 'Roll back to',
    says: (release, site) => `Release ${release}, live before the current one, becomes live at ${site.url} again.`,
  },
};

/** The page that asks before an alias change; `live` travels with the form so a change made meanwhile is refused. */
export function confirmView(
  ui: ConsoleContext,
  site: SiteOut,
  action: AliasAction,
  release: ReleaseRow,
  live: string | null,
  actionUrl: string,
): SafeHtml {
  const { verb, says } = CONFIRM[action];
  return html`<h1>${verb} ${release.id}?</h1>
<p>${says(release.id, site)}</p>
<p>Release \
<code>${release.id}</code>: ${release.fileCount} files, ${bytes(release.size)}, from ${time(release.createdAt)}.</p>
<form method="post" action="${actionUrl}">${csrfField(ui)}<input type="hidden" name="live" value="${live ?? 'none'}">
<p><button type="submit">${verb} ${release.id}</button> <a href="/sites/${site.id}">Cancel</a></p></form>`;
}

export function buildView(
  ui: ConsoleContext,
  site: SiteOut,
  build: BuildRow,
  logs: BuildLogRow[],
  previewUrl: string | undefined,
  error?: string,
): SafeHtml {
  const running = build.state === 'queued' || build.state === 'running';
  return html`<p><a href="/sites/${site.id}">${site.id}</a></p>
<h1>Build ${build.id}</h1>
${error ? notice('error', error) : ''}
<p>State: <strong data-build-state>${build.state}</strong>${
    running ? html` <span class="hint">(this page follows the log)</span>` : ''
  }. Trigger: ${build.trigger}${
    build.git ? html`, commit <code>${build.git.commit.slice(0, 12)}</code> of <code>${build.git.branch}</code>` : ''
  }. Queued ${time(build.createdAt)}.</p>
${build.error ? notice('error', build.error) : ''}
${
  build.releaseId
    ? html`<p>Built release <code>${build.releaseId}</code>${
        previewUrl ? html`: <a href="${previewUrl}">preview it</a>` : ''
      }, then promote it from <a href="/sites/${site.id}#releases-h">the releases</a>.</p>`
    : ''
}
${
  running
    ? html`<form method="post" action="/sites/${site.id}/builds/${build.id}/cancel">\
${csrfField(ui)}<button type="submit" class="danger">Cancel the build</button></form>`
    : ''
}
<h2>Log</h2>
<pre class="log" tabindex="0" aria-label="Build log">${
    logs.length
      ? logs.map((line) => `${line.line}\n`).join('')
      : running
        ? 'Waiting for the build to start…'
        : '(no output)'
  }</pre>
<p id="end"></p>`;
}

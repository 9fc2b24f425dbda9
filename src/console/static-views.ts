// The static site's sections of the console: releases with their previews and aliases, the upload
// form, builds and their logs, the connected repository and deploy tokens; and the confirmation
// pages that name the release an alias change will serve.
import type { CredentialRow } from '../core/credentials/tables.js';
import type { SiteOut } from '../core/sites/schemas.js';
import type { BuildLogRow, BuildRow } from '../deploy/builds/service.js';
import type { ReleaseRow } from '../deploy/service.js';
import { html, type SafeHtml } from '../lib/html.js';
import type { ConsoleContext } from './context.js';
import { bytes, releasesBody, releasesSummary, type ReleasesData } from './release-views.js';
import { csrfField, notice, time, type SiteSection } from './views.js';

export interface StaticSiteData extends ReleasesData {
  connection: { repository: string; branch: string; path: string; kind: string; webhookUrl: string } | undefined;
  tokens: CredentialRow[];
}

/** A secret the server shows this once: a deploy token or a webhook secret. */
export function shownOnce(label: string, value: string, id: string): SafeHtml {
  return html`<div class="notice ok once" role="status"><p>${label} Copy it now: it is not shown again.</p>
<p><code id="${id}" class="secret">${value}</code> \
<button type="button" class="secondary" data-copy="${id}" hidden>Copy</button></p></div>`;
}

/** A shared preview link just made: it can be made again, so it is not a secret shown once. */
export function shownPreviewLink(release: string, url: string, expiresAt: Date): SafeHtml {
  return html`<div class="notice ok" role="status"><p>A preview link to release <code>${release}</code>, \
working until ${time(expiresAt)}:</p>
<p><code id="preview-link" class="secret">${url}</code> \
<button type="button" class="secondary" data-copy="preview-link" hidden>Copy</button></p></div>`;
}

function uploadBody(ui: ConsoleContext, site: SiteOut): SafeHtml {
  return html`<form class="stack upload" method="post" action="/sites/${site.id}/upload" \
enctype="multipart/form-data" data-upload>${csrfField(ui)}
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
a folder is uploaded with the folders inside it.</p>`;
}

function buildsBody(site: SiteOut, builds: BuildRow[]): SafeHtml {
  if (builds.length === 0)
    return html`<p>No builds yet. <a href="#upload-h">Upload Markdown</a>, or \
<a href="#repo-h">connect a repository</a> to build on every push.</p>`;
  return html`<div class="table"><table><thead><tr><th scope="col">Build</th><th scope="col">State</th>\
<th scope="col">Trigger</th><th scope="col">Took</th><th scope="col">Release</th></tr></thead><tbody>
${builds.map(
  (b) =>
    html`<tr><td><a href="/sites/${site.id}/builds/${b.id}">${b.id}</a><br>${time(b.createdAt)}</td><td>${b.state}</td>\
<td>${b.trigger}${b.git ? html` <code>${b.git.branch}</code>` : ''}${
      b.requestedBy ? html`<br><span class="muted">by ${b.requestedBy}</span>` : ''
    }</td><td>${
      b.startedAt && b.finishedAt ? `${Math.round((b.finishedAt.getTime() - b.startedAt.getTime()) / 100) / 10} s` : '—'
    }</td><td>${b.releaseId ? html`<code>${b.releaseId}</code>` : ''}</td></tr>`,
)}
</tbody></table></div>`;
}

function repositoryBody(ui: ConsoleContext, site: SiteOut, connection: StaticSiteData['connection']): SafeHtml {
  if (connection) {
    return html`<p>Connected to <code>${connection.repository}</code>: pushes to \
<code>${connection.branch}</code> build promotable releases, other branches preview-only ones (${
      connection.kind === 'markdown' ? 'built as a docs site' : 'served as they are'
    }${connection.path ? html`, from the folder <code>${connection.path}</code>` : ''}).</p>
<p>Webhook URL: <code>${connection.webhookUrl}</code> (content type application/json, push events).</p>
<form method="post" action="/sites/${site.id}/repository/disconnect">\
${csrfField(ui)}<button type="submit" class="danger">Disconnect the repository</button></form>`;
  }
  return html`<p>Connect a repository to build on every push. Nothing is promoted by itself: \
you promote the release a push built.</p>
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
</form>`;
}

function tokensBody(ui: ConsoleContext, site: SiteOut, tokens: CredentialRow[]): SafeHtml {
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
  return html`${list}
<form class="stack" method="post" action="/sites/${site.id}/tokens">${csrfField(ui)}
<div><label for="token-name">Token name</label>\
<input id="token-name" name="name" required maxlength="100" placeholder="ci"></div>
<div><button type="submit">Mint a deploy token</button></div>
</form>`;
}

/** The summary and sections of a static site's page; the danger zone follows them. */
export function staticSections(
  ui: ConsoleContext,
  site: SiteOut,
  data: StaticSiteData,
): { summary: SafeHtml; sections: SiteSection[] } {
  const sections: SiteSection[] = [
    { id: 'releases', title: 'Releases', body: releasesBody(ui, site, data) },
    { id: 'builds', title: 'Builds', body: buildsBody(site, data.builds) },
  ];
  // A viewer reads releases and builds; uploads, the repository and tokens are the developers'.
  if (data.canDeploy)
    sections.push(
      { id: 'upload', title: 'Upload', body: uploadBody(ui, site) },
      { id: 'repo', title: 'Repository', body: repositoryBody(ui, site, data.connection) },
      { id: 'tokens', title: 'Deploy tokens', body: tokensBody(ui, site, data.tokens) },
    );
  return { summary: releasesSummary(site, data), sections };
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

/** What the build page offers for the release a build made. */
export interface BuiltRelease {
  previewUrl: string;
  /** A Promote button: the release may go live and is not live yet. */
  promotable: boolean;
  /** The live release the Promote form was shown against (its change is refused when that moved). */
  live: string | null;
}

function promoteForm(ui: ConsoleContext, site: SiteOut, releaseId: string, live: string | null): SafeHtml {
  return html`<form method="post" action="/sites/${site.id}/releases/${releaseId}/promote">${csrfField(ui)}\
<input type="hidden" name="live" value="${live ?? 'none'}"><button type="submit">Promote ${releaseId}</button> \
<span class="hint">It becomes live at <a href="${site.url}">${site.url}</a> at once.</span></form>`;
}

export function buildView(
  ui: ConsoleContext,
  site: SiteOut,
  build: BuildRow,
  logs: BuildLogRow[],
  built: BuiltRelease | undefined,
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
        built ? html`: <a href="${built.previewUrl}">preview it</a>` : ''
      }${
        built?.promotable ? '.' : html`; promote it from <a href="/sites/${site.id}#releases-h">the releases</a>.`
      }</p>${built?.promotable ? promoteForm(ui, site, build.releaseId, built.live) : ''}`
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

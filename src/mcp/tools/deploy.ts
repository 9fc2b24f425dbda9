// The deploy group (8 tools) over the deploy API, with a deploy token. Production changes refuse
// without `confirm: true` and a confirmation id bound to the action (confirmation.ts), and say what
// would happen; each answers the call that undoes it (spec section 5 rule 4, DESIGN section 8).
import { z } from 'zod';
import { ApiProblem, ToolFailure, type BlumeClient } from '../api.js';
import { confirmArgs, type ConfirmedAction } from '../confirmation.js';
import type { ToolCall } from '../confirmation.js';
import { defineTool, type ToolContext, type ToolDefinition, type ToolGroup } from '../tool.js';
import { withArchiveUpload } from './files.js';
import { pageArgs, pageNote, pageOf, Pagination } from './pagination.js';

const Release = z.looseObject({
  id: z.string(),
  site: z.string(),
  created_at: z.string(),
  source: z.string(),
  file_count: z.number(),
  size: z.number(),
  preview_url: z.string(),
  promotable: z.boolean(),
  build_id: z.string().nullable(),
});
type Release = z.infer<typeof Release>;
const Aliases = z.object({ live: z.string().nullable(), stage: z.string().nullable() });
const Urls = z.object({ production: z.string(), stage: z.string() });
const Undo = z
  .object({ tool: z.string(), arguments: z.record(z.string(), z.unknown()), note: z.string() })
  .nullable()
  .describe('The tool call that undoes this production change; null when nothing can (nothing was live before).');
const PreviewAuth = z
  .object({ user: z.string(), password: z.string() })
  .describe('HTTP basic auth of preview and stage hosts.');
const Build = z.looseObject({
  id: z.string(),
  state: z.string(),
  trigger: z.string(),
  created_at: z.string(),
  finished_at: z.string().nullable(),
  release: z.string().nullable(),
  error: z.string().nullable(),
  logs: z.array(z.looseObject({ at: z.string(), stream: z.string(), line: z.string() })),
});

interface ReleasesAnswer {
  releases: Release[];
  aliases: { live: string | null; stage: string | null; auth: string };
  urls: { production: string; stage: string };
  rollback_to: string | null;
}

const PREVIEW_USER = 'preview';

function describeRelease(release: Release | undefined, id: string | null): string {
  if (!id) return 'nothing';
  return release ? `release ${id} (${release.file_count} files, made ${release.created_at})` : `release ${id}`;
}

class DeploySite {
  constructor(
    readonly client: BlumeClient,
    readonly site: string,
  ) {}

  path(suffix = ''): string {
    return `/api/deploy/${encodeURIComponent(this.site)}${suffix}`;
  }

  async releases(): Promise<ReleasesAnswer> {
    return (await this.client.call<ReleasesAnswer>('deploy', 'GET', this.path('/releases'))).data;
  }

  /** The status `/` of a release's preview answers; 0 when it cannot be reached. */
  async previewStatus(release: Release, password: string): Promise<number> {
    const auth = `Basic ${Buffer.from(`${PREVIEW_USER}:${password}`).toString('base64')}`;
    return this.client.probe(new URL('/', release.preview_url), { authorization: auth }).catch(() => 0);
  }

  /** Refuses a promote whose preview fails, unless forced (spec section 5 rule 4). */
  async checkPreview(release: Release, password: string, force: boolean): Promise<void> {
    if (force) return;
    const status = await this.previewStatus(release, password);
    if (status >= 500 || status === 0) {
      const what = status === 0 ? 'cannot be reached' : `answers ${status}`;
      throw new ToolFailure(
        `Refused: the preview of release ${release.id} (${release.preview_url}) ${what} on /, so it would likely break \
production. ` +
          'Nothing changed. Fix the release, or call deploy_promote again with force: true if your human accepts it.',
      );
    }
  }
}

async function deploySite(client: BlumeClient): Promise<DeploySite> {
  const { data } = await client.call<{ site: string }>('deploy', 'GET', '/api/deploy/token');
  const wanted = client.credentials.site;
  if (wanted && wanted !== data.site)
    throw new ToolFailure(`The deploy token belongs to site "${data.site}", not BLUME_SITE "${wanted}".`);
  return new DeploySite(client, data.site);
}

function undoByRollback(previousLive: string | null): z.infer<typeof Undo> {
  return previousLive
    ? {
        tool: 'deploy_rollback',
        arguments: { confirm: true },
        note: `Returns production to release ${previousLive} (its refusal answers the confirmation_id to add).`,
      }
    : null;
}

function definitions(site: DeploySite, context: ToolContext): ToolDefinition[] {
  const { client } = site;
  /** Goes ahead only with a human's confirmation of exactly this change (confirmation.ts). */
  const confirmed = (
    call: ToolCall,
    action: Omit<ConfirmedAction, 'site'>,
    given: { confirm?: boolean; confirmation_id?: string },
    what: string,
  ): Promise<void> => context.confirmations.require(call, { ...action, site: site.site }, given, what);
  return [
    defineTool({
      name: 'deploy_list_releases',
      title: 'List releases',
      description: `A page of the releases of site ${site.site} (newest first), the live release and the staged one, \
the production and stage URLs, and the release a rollback would return to.`,
      input: { ...pageArgs },
      output: {
        releases: z.array(Release),
        pagination: Pagination,
        live_release: Release.nullable().describe('The release production serves, wherever it falls in the pages.'),
        aliases: Aliases,
        urls: Urls,
        rollback_to: z.string().nullable(),
        preview_auth: PreviewAuth,
      },
      hints: { readOnly: true },
      run: async (args) => {
        const { releases, aliases, urls, rollback_to } = await site.releases();
        const { items, pagination } = pageOf(releases, args);
        const live = releases.find((r) => r.id === aliases.live) ?? null;
        return {
          data: {
            releases: items,
            pagination,
            live_release: live,
            aliases: { live: aliases.live, stage: aliases.stage },
            urls,
            rollback_to,
            preview_auth: { user: PREVIEW_USER, password: aliases.auth },
          },
          text:
            `Site ${site.site}: live ${describeRelease(live ?? undefined, aliases.live)} at ${urls.production}; ` +
            `stage ${aliases.stage ?? 'none'}; a rollback returns to ${rollback_to ?? 'nothing'}. ` +
            `Releases, newest first: ${pageNote('deploy_list_releases', pagination)}.`,
        };
      },
    }),
    defineTool({
      name: 'deploy_upload',
      title: 'Upload a site',
      description:
        "Uploads a built site (a folder or a .tar.gz on the tool server's disk) as a new release and answers " +
        'its preview URL and basic-auth user. ' +
        'With promote: true it also makes it live, which needs confirmation (confirm: true and the ' +
        'confirmation_id a refusal answers). A failed upload promotes nothing.',
      input: {
        path: z.string().min(1).describe('A folder, or a .tar.gz archive, of the built site.'),
        promote: z.boolean().optional().describe('Also make the new release live (a production deploy).'),
        ...confirmArgs,
      },
      output: {
        release: Release,
        preview_url: z.string(),
        preview_auth: PreviewAuth,
        live: z.boolean(),
        production_url: z.string(),
        undo: Undo,
      },
      hints: { destructive: true, creates: true },
      run: async ({ path, promote, confirm, confirmation_id }, call) => {
        const before = await site.releases();
        if (promote) {
          await confirmed(
            call,
            { tool: 'deploy_upload', arguments: { path, promote }, state: { live: before.aliases.live } },
            { confirm, confirmation_id },
            `This would upload ${path} as a new release of ${site.site} and make it live at ${before.urls.production}, \
` +
              `replacing ${describeRelease(
                before.releases.find((r) => r.id === before.aliases.live),
                before.aliases.live,
              )} (call without promote for a preview only).`,
          );
        }
        const release = await withArchiveUpload(
          context.files,
          site.site,
          path,
          async (upload) =>
            (await client.call<Release>('deploy', 'POST', site.path(), { body: upload.body, headers: upload.headers }))
              .data,
        );
        const previewAuth = { user: PREVIEW_USER, password: before.aliases.auth };
        const answer = {
          release,
          preview_url: release.preview_url,
          preview_auth: previewAuth,
          production_url: before.urls.production,
        };
        if (!promote) {
          return {
            data: { ...answer, live: false, undo: null },
            text: `Uploaded release ${release.id} (${release.file_count} files). Preview: ${release.preview_url} (basic\
 auth user "${PREVIEW_USER}"). Not live.`,
          };
        }
        await site.checkPreview(release, before.aliases.auth, false).catch((error: unknown) => {
          throw new ToolFailure(`Release ${release.id} was uploaded but not promoted. ${(error as Error).message}`);
        });
        await client.call('deploy', 'POST', site.path('/promote'), { json: { release: release.id } });
        return {
          data: { ...answer, live: true, undo: undoByRollback(before.aliases.live) },
          text: `Release ${release.id} is live at ${before.urls.production}. Preview: ${release.preview_url}. Undo: ${
            before.aliases.live ? `deploy_rollback returns to ${before.aliases.live}` : 'none (nothing was live before)'
          }.`,
        };
      },
    }),
    defineTool({
      name: 'deploy_promote',
      title: 'Promote a release',
      description:
        'Makes a release live in production (atomic). Needs confirm: true and the confirmation_id a refusal ' +
        'answers; without them, says which release would go live and which it replaces. ' +
        'Refuses a release whose preview answers 5xx on / unless force: true.',
      input: {
        release: z
          .string()
          .regex(/^[a-z0-9]{12}$/)
          .describe('The release id.'),
        ...confirmArgs,
        force: z.boolean().optional().describe("Promote even when the release's preview answers 5xx on /."),
      },
      output: { live: z.string(), previous_live: z.string().nullable(), production_url: z.string(), undo: Undo },
      hints: { destructive: true, idempotent: true },
      run: async ({ release: id, confirm, confirmation_id, force }, call) => {
        const before = await site.releases();
        const release = before.releases.find((r) => r.id === id);
        if (!release)
          throw new ToolFailure(
            `Site ${site.site} has no release ${id}; deploy_list_releases lists them. Nothing changed.`,
          );
        if (!release.promotable)
          throw new ToolFailure(
            `Release ${id} is preview-only (a build of a branch that is not connected) and cannot go live. Nothing \
changed.`,
          );
        await site.checkPreview(release, before.aliases.auth, force ?? false);
        const current = before.aliases.live;
        await confirmed(
          call,
          { tool: 'deploy_promote', arguments: { release: id, force }, state: { live: current } },
          { confirm, confirmation_id },
          `This would make ${describeRelease(release, id)} live at ${before.urls.production}, replacing ` +
            `${describeRelease(
              before.releases.find((r) => r.id === current),
              current,
            )}.`,
        );
        await client.call('deploy', 'POST', site.path('/promote'), { json: { release: id } });
        const undo = current === id ? null : undoByRollback(current);
        return {
          data: { live: id, previous_live: current, production_url: before.urls.production, undo },
          text: `Release ${id} is live at ${before.urls.production}.${
            undo ? ` Undo: deploy_rollback returns to ${current}.` : ''
          }`,
        };
      },
    }),
    defineTool({
      name: 'deploy_rollback',
      title: 'Roll back production',
      description:
        'Returns production to the release that was live before the current one. Needs confirm: true and the ' +
        'confirmation_id a refusal answers; without them, says which release production would return to.',
      input: { ...confirmArgs },
      output: { live: z.string(), previous_live: z.string().nullable(), production_url: z.string(), undo: Undo },
      hints: { destructive: true },
      run: async ({ confirm, confirmation_id }, call) => {
        const before = await site.releases();
        const target = before.rollback_to;
        if (!target)
          throw new ToolFailure(`Site ${site.site} has no earlier live release to return to. Nothing changed.`);
        const current = before.aliases.live;
        await confirmed(
          call,
          { tool: 'deploy_rollback', arguments: {}, state: { live: current, target } },
          { confirm, confirmation_id },
          `This would return ${before.urls.production} to ${describeRelease(
            before.releases.find((r) => r.id === target),
            target,
          )}, ` +
            `taking ${describeRelease(
              before.releases.find((r) => r.id === current),
              current,
            )} out of production.`,
        );
        await client.call('deploy', 'POST', site.path('/rollback'));
        const undo = current
          ? {
              tool: 'deploy_promote',
              arguments: { release: current, confirm: true },
              note: `Makes release ${current} live again (its refusal answers the confirmation_id to add).`,
            }
          : null;
        return {
          data: { live: target, previous_live: current, production_url: before.urls.production, undo },
          text: `Production (${before.urls.production}) is back on release ${target}.${
            current ? ` Undo: deploy_promote {release: "${current}"}.` : ''
          }`,
        };
      },
    }),
    defineTool({
      name: 'deploy_stage',
      title: 'Set or clear the stage release',
      description:
        'Points the stage host (basic auth) at a release, or clears it with release: null. Production is not touched.',
      input: {
        release: z
          .string()
          .regex(/^[a-z0-9]{12}$/)
          .nullable()
          .describe('The release id, or null to clear the stage.'),
      },
      output: { stage: z.string().nullable(), stage_url: z.string(), preview_auth: PreviewAuth },
      hints: { idempotent: true },
      run: async ({ release }) => {
        const answer =
          release === null
            ? await client.call<{ aliases: ReleasesAnswer['aliases']; urls: ReleasesAnswer['urls'] }>(
                'deploy',
                'DELETE',
                site.path('/stage'),
              )
            : await client.call<{ aliases: ReleasesAnswer['aliases']; urls: ReleasesAnswer['urls'] }>(
                'deploy',
                'PUT',
                site.path('/stage'),
                { json: { release } },
              );
        const { aliases, urls } = answer.data;
        return {
          data: {
            stage: aliases.stage,
            stage_url: urls.stage,
            preview_auth: { user: PREVIEW_USER, password: aliases.auth },
          },
          text: aliases.stage ? `Stage (${urls.stage}) serves release ${aliases.stage}.` : 'The stage is cleared.',
        };
      },
    }),
    defineTool({
      name: 'deploy_build_source',
      title: 'Build a site from Markdown',
      description:
        'Uploads a folder (or tar/tar.gz) of Markdown, builds a docs site from it and answers the new ' +
        "release (not live) or the failed build's logs.",
      input: { path: z.string().min(1).describe('A folder, or a tar/tar.gz archive, of Markdown sources.') },
      output: {
        release: Release.nullable(),
        build_id: z.string().nullable(),
        preview_url: z.string().nullable(),
        preview_auth: PreviewAuth,
      },
      hints: { creates: true },
      run: async ({ path }) => {
        const before = await site.releases();
        const answer = await withArchiveUpload(context.files, site.site, path, async (upload) => {
          try {
            return await client.call<Release | z.infer<typeof Build>>('deploy', 'POST', site.path('/source'), {
              body: upload.body,
              headers: upload.headers,
            });
          } catch (error) {
            const logs =
              error instanceof ApiProblem ? (error.body.logs as Array<{ line: string }> | undefined) : undefined;
            if (logs)
              throw new ToolFailure(
                `${(error as Error).message}\nBuild logs (last lines):\n${logs
                  .slice(-30)
                  .map((entry) => entry.line)
                  .join('\n')}`,
              );
            throw error;
          }
        });
        const previewAuth = { user: PREVIEW_USER, password: before.aliases.auth };
        if (answer.status === 202) {
          const build = answer.data as z.infer<typeof Build>;
          return {
            data: { release: null, build_id: build.id, preview_url: null, preview_auth: previewAuth },
            text: `Build ${build.id} is still ${build.state}; follow it with deploy_get_build {build_id: "${build.id}"}\
.`,
          };
        }
        const release = answer.data as Release;
        return {
          data: { release, build_id: release.build_id, preview_url: release.preview_url, preview_auth: previewAuth },
          text: `Built release ${release.id} (${release.file_count} files). Preview: ${release.preview_url} (basic auth\
 user "${PREVIEW_USER}"). Not live.`,
        };
      },
    }),
    defineTool({
      name: 'deploy_get_build',
      title: 'Read builds',
      description: 'One build with its logs (build_id), or a page of the recent builds of the site.',
      input: { build_id: z.string().optional().describe('A build id; omit it for the recent builds.'), ...pageArgs },
      output: { builds: z.array(Build), pagination: Pagination },
      hints: { readOnly: true },
      run: async ({ build_id, ...args }) => {
        const all = build_id
          ? [
              (
                await client.call<z.infer<typeof Build>>(
                  'deploy',
                  'GET',
                  site.path(`/builds/${encodeURIComponent(build_id)}`),
                )
              ).data,
            ]
          : (await client.call<{ builds: z.infer<typeof Build>[] }>('deploy', 'GET', site.path('/builds'))).data.builds;
        const { items, pagination } = pageOf(all, args);
        return {
          data: { builds: items, pagination },
          text: `${items.length} builds with their logs: ${pageNote('deploy_get_build', pagination)}.`,
        };
      },
    }),
    defineTool({
      name: 'deploy_connect_repository',
      title: 'Connect a git repository',
      description:
        'Connects a repository and branch: a push to that branch builds a promotable release (kind markdown ' +
        'builds docs, static serves the folder). ' +
        'Needs confirm: true and the confirmation_id a refusal answers; without them, says which repository ' +
        'and branch would replace the current connection. Answers the webhook URL and secret (shown only ' +
        'here).',
      input: {
        repository: z.string().min(1).describe('owner/name of the repository.'),
        branch: z.string().min(1),
        path: z.string().optional().describe('Folder of the repository to build or serve.'),
        kind: z.enum(['markdown', 'static']),
        ...confirmArgs,
      },
      output: {
        repository: z.string(),
        branch: z.string(),
        path: z.string().nullable(),
        kind: z.string(),
        webhook_url: z.string(),
        webhook_secret: z.string(),
        undo: Undo,
      },
      // Links the site to a git host, whose pushes then build releases.
      hints: { destructive: true, idempotent: true, openWorld: true },
      run: async ({ repository, branch, path, kind, confirm, confirmation_id }, call) => {
        const current = await client.request<{ repository: string; branch: string; path: string | null; kind: string }>(
          'deploy',
          'GET',
          site.path('/github'),
        );
        const previous = current.status === 200 ? current.data : undefined;
        if (current.status !== 200 && current.status !== 404) await client.call('deploy', 'GET', site.path('/github'));
        await confirmed(
          call,
          {
            tool: 'deploy_connect_repository',
            arguments: { repository, branch, path, kind },
            state: previous ? { repository: previous.repository, branch: previous.branch } : null,
          },
          { confirm, confirmation_id },
          `This would connect ${repository} branch ${branch}${
            path ? ` (folder ${path})` : ''
          } as a ${kind} site to ${site.site}, ` +
            `${
              previous
                ? `replacing ${previous.repository} branch ${previous.branch}`
                : 'where no repository is connected now'
            }; ` +
            'pushes to that branch would then build promotable releases.',
        );
        const { data } = await client.call<{
          repository: string;
          branch: string;
          path: string | null;
          kind: string;
          webhook_url: string;
          webhook_secret: string;
        }>('deploy', 'PUT', site.path('/github'), { json: { repository, branch, kind, ...(path ? { path } : {}) } });
        const undo = previous
          ? {
              tool: 'deploy_connect_repository',
              arguments: {
                repository: previous.repository,
                branch: previous.branch,
                kind: previous.kind,
                ...(previous.path ? { path: previous.path } : {}),
                confirm: true,
              },
              note: `Connects ${previous.repository} branch ${previous.branch} again (its refusal answers the \
confirmation_id to add).`,
            }
          : null;
        return {
          data: {
            repository: data.repository,
            branch: data.branch,
            path: data.path,
            kind: data.kind,
            webhook_url: data.webhook_url,
            webhook_secret: data.webhook_secret,
            undo,
          },
          text: `Connected ${data.repository} branch ${data.branch} (${data.kind}). Push webhook: ${data.webhook_url} \
(the secret to give the git host is webhook_secret, shown only now).`,
        };
      },
    }),
  ];
}

export const deployTools: ToolGroup = {
  name: 'deploy',
  credential: ({ deployToken }) => (deployToken ? 'deployToken' : undefined),
  tools: async (context) => {
    if (!context.client.credentials.deployToken) return [];
    return definitions(await deploySite(context.client), context);
  },
};

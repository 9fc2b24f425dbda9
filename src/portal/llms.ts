// `{portal_url}/llms.txt` (llmstxt.org: H1, blockquote, sections of links, `Optional`) and
// `llms-full.txt` with every API's reference inline, answers included; each community site serves its
// own pair, naming its APIs at its own origin. Both are made from the app's registry of OpenAPI
// documents (`app.apiDocuments`), so they list exactly the APIs that serve a document. Every bullet is
// a link, so link-list parsers keep them all.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ApiDocumentEntry } from '../http/openapi.js';

const SUMMARY =
  'Blume is a self-hostable web-presence platform: static and Markdown docs sites deployed as immutable ' +
  'releases with previews, ' +
  'and community sites with a forum, a headless CMS and a help desk, each with a REST API and an OpenAPI 3.1 document.';

interface Item {
  /** The link's text. */
  title: string;
  text: string;
}

// The spec's operating rules for agent-driven use (platform interface, section 1 item 6 and section 5).
const AGENT_RULES: Item[] = [
  {
    title: 'Scope the token to one site',
    text:
      'an agent gets a deploy token (or an API key with the least scopes), never an account password or a ' +
      'portal session.',
  },
  {
    title: 'Check the preview before production',
    text: 'every upload answers a preview URL (basic auth user `preview`); open it before promoting.',
  },
  {
    title: 'Promotion is always an explicit call',
    text: 'nothing goes live on upload; `POST /api/deploy/{id}/promote` (or the MCP tool with `confirm: true`) does.',
  },
  {
    title: 'Roll back first',
    text: 'on a production problem, roll back first (`POST /api/deploy/{id}/rollback`) and investigate afterwards.',
  },
  { title: 'Never print a token', text: 'never print or log a deploy token.' },
];

const MCP_TEXT: Item[] = [
  {
    title: 'Tools',
    text:
      "Blume's MCP tool server exposes typed tools in four groups: deploy tools (deploy token), forum tools " +
      '(forum token), content tools (API key with cms scopes) and help desk tools (API key with helpdesk ' +
      "scopes, or an agent's forum token); each group is listed only when its credential can use it.",
  },
  {
    title: 'Locally (stdio)',
    text:
      '`npx blume mcp` with `BLUME_URL` (the portal), `BLUME_DEPLOY_TOKEN`, and for a community site ' +
      '`BLUME_TENANT_URL` with `BLUME_FORUM_TOKEN` and/or `BLUME_API_KEY`.',
  },
  {
    title: 'Remotely (Streamable HTTP)',
    text:
      '`POST {portal}/mcp` with the same credentials as headers: `Authorization: Bearer <deploy token>`, ' +
      '`X-Blume-Tenant-Url`, `Authentication-Token`, `X-Blume-Api-Key`.',
  },
  {
    title: 'Production changes',
    text:
      'deploy_promote, deploy_rollback, deploy_upload with promote and deploy_connect_repository refuse until ' +
      'called again with `confirm: true` and the confirmation id the refusal answers (bound to that exact ' +
      'action, for 10 minutes); the refusal says what would happen.',
  },
];

/** Where a section's bullets link: its own anchor in llms-full.txt. */
function linked(items: readonly Item[], full: string, section: string): string[] {
  return items.map((item) => `- [${item.title}](${full}#${anchor(section)}): ${item.text}`);
}

function anchor(title: string): string {
  return title
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
}

function documentUrl(base: string, entry: ApiDocumentEntry): string {
  return entry.servedOn === 'portal' ? `${base}${entry.path}` : `{site_url}${entry.path}`;
}

/** Whose pair of files: the portal's (every API), or one community site's (its own APIs, at its origin). */
type Audience = 'portal' | 'site';

function renderLlmsTxt(
  base: string,
  documents: readonly ApiDocumentEntry[],
  audience: Audience,
  anchors = false,
): string {
  const full = `${base}/llms-full.txt`;
  const heading = (title: string) => [`## ${title}`, '', ...(anchors ? [`<a id="${anchor(title)}"></a>`, ''] : [])];
  const apis =
    audience === 'site'
      ? documents
          .filter((entry) => entry.servedOn === 'site')
          .map(
            (entry) =>
              `- [${entry.title}](${base}${entry.path}): OpenAPI 3.1 document. ${firstSentence(entry.description)} \
Reference: ${full}#${anchor(entry.title)}`,
          )
      : [
          ...documents
            .filter((entry) => entry.servedOn === 'portal')
            .map(
              (entry) =>
                `- [${entry.title}](${documentUrl(base, entry)}): OpenAPI 3.1 document. \
${firstSentence(entry.description)} Reference: ${full}#${anchor(entry.title)}`,
            ),
          ...documents
            .filter((entry) => entry.servedOn === 'site')
            .map(
              (entry) =>
                `- [${entry.title} reference](${full}#${anchor(entry.title)}): ${firstSentence(entry.description)} Each\
 community site serves its OpenAPI 3.1 document at \`${documentUrl(base, entry)}\`.`,
            ),
        ];
  const where =
    audience === 'site'
      ? `This community site is ${base}: its APIs and their OpenAPI documents answer here, and its own \
\`llms.txt\` is this file.`
      : `The portal is ${base}. Community sites answer at their own origin, \`{site_url}\` (such as \`https://<site>.\
<domain>\`), where their APIs serve their documents and their own \`llms.txt\`.`;
  return [
    '# Blume',
    '',
    `> ${SUMMARY}`,
    '',
    where,
    '',
    '## APIs',
    '',
    ...apis,
    '',
    ...heading('MCP server'),
    ...linked(MCP_TEXT, full, 'MCP server'),
    '',
    ...(audience === 'portal'
      ? [...heading('Agent operating rules'), ...linked(AGENT_RULES, full, 'Agent operating rules'), '']
      : []),
    '## Optional',
    '',
    `- [Full reference](${full}): every API's operations inline, with parameters, bodies and answers.`,
    '',
  ].join('\n');
}

function firstSentence(text: string): string {
  const match = /^.*?[.!?](\s|$)/.exec(text);
  return (match ? match[0] : text).trim();
}

type Operation = {
  summary?: string;
  description?: string;
  parameters?: Array<{ name: string; in: string; required?: boolean }>;
  requestBody?: unknown;
  responses?: Record<string, unknown>;
  security?: Array<Record<string, unknown>>;
};

function renderOperations(doc: Record<string, unknown>): string[] {
  const lines: string[] = [];
  const paths = (doc.paths ?? {}) as Record<string, Record<string, Operation>>;
  for (const [path, item] of Object.entries(paths)) {
    for (const [method, operation] of Object.entries(item)) {
      lines.push(`### ${method.toUpperCase()} ${path}`, '');
      if (operation.summary) lines.push(operation.summary, '');
      if (operation.description) lines.push(operation.description, '');
      const params = (operation.parameters ?? []).map(
        (p) => `\`${p.name}\` (${p.in}${p.required ? ', required' : ''})`,
      );
      if (params.length > 0) lines.push(`Parameters: ${params.join(', ')}`, '');
      if (operation.requestBody) lines.push('Body:', '```json', JSON.stringify(operation.requestBody), '```', '');
      const credentials = (operation.security ?? []).flatMap((requirement) => Object.keys(requirement));
      if (credentials.length > 0) lines.push(`Credential: ${credentials.join(' or ')}`, '');
      lines.push(`Answers: ${Object.keys(operation.responses ?? {}).join(', ')}`, '');
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        const schema = (response as { content?: Record<string, { schema?: unknown }> }).content?.['application/json']
          ?.schema;
        if (Number(status) < 300 && schema)
          lines.push(`Answer ${status}:`, '```json', JSON.stringify(schema), '```', '');
      }
    }
  }
  return lines;
}

function renderLlmsFullTxt(base: string, documents: readonly ApiDocumentEntry[], audience: Audience): string {
  const listed = audience === 'site' ? documents.filter((entry) => entry.servedOn === 'site') : documents;
  const sections = listed.flatMap((entry) => [
    `## ${entry.title}`,
    '',
    `<a id="${anchor(entry.title)}"></a>`,
    '',
    entry.description,
    '',
    `OpenAPI 3.1: ${audience === 'site' ? `${base}${entry.path}` : documentUrl(base, entry)}`,
    '',
    ...renderOperations(entry.document()),
  ]);
  return [renderLlmsTxt(base, documents, audience, true).trimEnd(), '', ...sections].join('\n');
}

function llmsRoutesFor(audience: Audience) {
  return async (app: FastifyInstance): Promise<void> => {
    const base = (request: FastifyRequest) => `${request.protocol}://${request.host}`;
    app.get('/llms.txt', { schema: { hide: true } }, async (request, reply) =>
      reply.type('text/plain; charset=utf-8').send(renderLlmsTxt(base(request), app.apiDocuments, audience)),
    );
    app.get('/llms-full.txt', { schema: { hide: true } }, async (request, reply) =>
      reply.type('text/plain; charset=utf-8').send(renderLlmsFullTxt(base(request), app.apiDocuments, audience)),
    );
  };
}

/** The portal's pair: every API of the platform. */
export const llmsRoutes = llmsRoutesFor('portal');
/** A community site's pair: the APIs its own host serves. */
export const siteLlmsRoutes = llmsRoutesFor('site');

// `{portal_url}/llms.txt` (llmstxt.org: H1, blockquote, sections of links, `Optional`) and
// `llms-full.txt` with every API's reference inline. Both are made from the app's registry of OpenAPI
// documents (`app.apiDocuments`), so they list exactly the APIs that serve a document.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ApiDocumentEntry } from '../http/openapi.js';

const SUMMARY =
  'Blume is a self-hostable web-presence platform: static and Markdown docs sites deployed as immutable releases with previews, ' +
  'and community sites with a forum, a headless CMS and a help desk, each with a REST API and an OpenAPI 3.1 document.';

// The spec's operating rules for agent-driven use (platform interface, section 1 item 6 and section 5).
const AGENT_RULES = [
  'Scope the token to one site: an agent gets a deploy token (or an API key with the least scopes), never an account password or a portal session.',
  'Check the preview before production: every upload answers a preview URL (basic auth user `preview`); open it before promoting.',
  'Promotion is always an explicit call: nothing goes live on upload; `POST /api/deploy/{id}/promote` (or the MCP tool with `confirm: true`) does.',
  'On a production problem, roll back first (`POST /api/deploy/{id}/rollback`) and investigate afterwards.',
  'Never print or log a deploy token.',
];

const MCP_TEXT = [
  "Blume's MCP tool server exposes 23 tools with typed input and output: 8 deploy tools (deploy token), 5 forum tools (forum token), 5 content tools (API key with cms scopes) and 5 help desk tools (API key with helpdesk scopes, or an agent's forum token); each group is listed only when its credential can use it.",
  'Locally (stdio): `npx blume mcp` with `BLUME_URL` (the portal), `BLUME_DEPLOY_TOKEN`, and for a community site `BLUME_TENANT_URL` with `BLUME_FORUM_TOKEN` and/or `BLUME_API_KEY`.',
  'Remotely (Streamable HTTP, stateless): `POST {portal}/mcp` with the same credentials as headers: `Authorization: Bearer <deploy token>`, `X-Blume-Tenant-Url`, `Authentication-Token`, `X-Blume-Api-Key`.',
  'Production changes (deploy_promote, deploy_rollback, deploy_upload with promote, deploy_connect_repository) refuse without `confirm: true` and say what would happen.',
];

function anchor(title: string): string {
  return title
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
}

function documentUrl(base: string, entry: ApiDocumentEntry): string {
  return entry.servedOn === 'portal' ? `${base}${entry.path}` : `{site_url}${entry.path}`;
}

function renderLlmsTxt(base: string, documents: readonly ApiDocumentEntry[]): string {
  const portalApis = documents.filter((entry) => entry.servedOn === 'portal');
  const siteApis = documents.filter((entry) => entry.servedOn === 'site');
  return [
    '# Blume',
    '',
    `> ${SUMMARY}`,
    '',
    `The portal is ${base}. Community sites answer at their own origin, \`{site_url}\` (such as \`https://<site>.<domain>\`), where their APIs serve their documents.`,
    '',
    '## APIs',
    '',
    ...portalApis.map(
      (entry) =>
        `- [${entry.title}](${documentUrl(base, entry)}): OpenAPI 3.1 document. ${firstSentence(entry.description)} Reference: ${base}/llms-full.txt#${anchor(entry.title)}`,
    ),
    ...siteApis.map(
      (entry) =>
        `- [${entry.title} reference](${base}/llms-full.txt#${anchor(entry.title)}): ${firstSentence(entry.description)} Each community site serves its OpenAPI 3.1 document at \`${documentUrl(base, entry)}\`.`,
    ),
    '',
    '## MCP server',
    '',
    ...MCP_TEXT.map((line) => `- ${line}`),
    '',
    '## Agent operating rules',
    '',
    ...AGENT_RULES.map((line) => `- ${line}`),
    '',
    '## Optional',
    '',
    `- [Full reference](${base}/llms-full.txt): every API's operations inline, with parameters, bodies and answers.`,
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
    }
  }
  return lines;
}

function renderLlmsFullTxt(base: string, documents: readonly ApiDocumentEntry[]): string {
  const sections = documents.flatMap((entry) => [
    `## ${entry.title}`,
    '',
    `<a id="${anchor(entry.title)}"></a>`,
    '',
    entry.description,
    '',
    `OpenAPI 3.1: ${documentUrl(base, entry)}`,
    '',
    ...renderOperations(entry.document()),
  ]);
  return [renderLlmsTxt(base, documents).trimEnd(), '', ...sections].join('\n');
}

export async function llmsRoutes(app: FastifyInstance): Promise<void> {
  const base = (request: FastifyRequest) => `${request.protocol}://${request.host}`;
  app.get('/llms.txt', { schema: { hide: true } }, async (request, reply) =>
    reply.type('text/plain; charset=utf-8').send(renderLlmsTxt(base(request), app.apiDocuments)),
  );
  app.get('/llms-full.txt', { schema: { hide: true } }, async (request, reply) =>
    reply.type('text/plain; charset=utf-8').send(renderLlmsFullTxt(base(request), app.apiDocuments)),
  );
}

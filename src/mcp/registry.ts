// The one registry of tool groups. Each group asks the API what its credential can do and answers
// the tools it may list; the server registers exactly those, through one wrapper that checks the
// arguments strictly, keeps answers of calls with an idempotency key, renders the text an agent
// reads (text.ts) and turns every failure into a tool error (isError) with no credential in it. A
// credential that is missing or refused is never silent: the transport answers 401 (HTTP) or lists
// `blume_status`, whose description and answer say which variable to fix. A new group is one more
// entry in TOOL_GROUPS.
import { createHash } from 'node:crypto';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { ApiProblem, ToolFailure, type BlumeClient } from './api.js';
import type { CredentialNames } from './credentials.js';
import { onceByKey } from './idempotency.js';
import { resultText } from './text.js';
import type { ToolCall } from './confirmation.js';
import type { ToolContext, ToolDefinition, ToolGroup } from './tool.js';
import { cmsTools } from './tools/cms.js';
import { deployTools } from './tools/deploy.js';
import { forumTools } from './tools/forum.js';
import { helpdeskTools } from './tools/helpdesk.js';

const TOOL_GROUPS: readonly ToolGroup[] = [deployTools, forumTools, cmsTools, helpdeskTools];

const SERVER_INFO = { name: 'blume', title: 'Blume', version: '1.0.0' };

/** Why some tools are not listed. `refused`: a credential was presented and its API answered 401. */
interface SetupProblem {
  message: string;
  refused: boolean;
}

interface FoundTools {
  tools: ToolDefinition[];
  problems: SetupProblem[];
  /** No credential at all was given. */
  anonymous: boolean;
}

/** Asks every group what the credentials may use; `names` say the credentials as the transport does. */
export async function findTools(
  context: ToolContext,
  names: CredentialNames,
  groups: readonly ToolGroup[] = TOOL_GROUPS,
): Promise<FoundTools> {
  const { client } = context;
  const { deployToken, forumToken, apiKey, tenantUrl } = client.credentials;
  const problems: SetupProblem[] = [];
  const anonymous = !deployToken && !forumToken && !apiKey;
  if (anonymous)
    problems.push({
      message: `No credential was given: set ${names.deployToken}, or ${names.tenantUrl} with ${names.forumToken} or ${names.apiKey}.`,
      refused: false,
    });
  if ((forumToken || apiKey) && !tenantUrl)
    problems.push({
      message: `${forumToken ? names.forumToken : names.apiKey} is set but ${names.tenantUrl} is missing: name the community site it belongs to.`,
      refused: false,
    });
  if (tenantUrl && !forumToken && !apiKey)
    problems.push({
      message: `${names.tenantUrl} is set but neither ${names.forumToken} nor ${names.apiKey} is.`,
      refused: false,
    });
  const lists = await Promise.all(
    groups.map((group) =>
      group.tools(context).catch((error: unknown) => {
        const credential = group.credential(client.credentials);
        const said = client.scrub(error instanceof Error ? error.message : String(error));
        const refused = error instanceof ApiProblem && error.status === 401 && credential !== undefined;
        const message = refused
          ? `${names[credential]} was refused, so the ${group.name} tools are not listed: ${said}`
          : `The ${group.name} tools are not listed: ${said}`;
        if (!problems.some((problem) => problem.message === message)) problems.push({ message, refused });
        return [];
      }),
    ),
  );
  return { tools: lists.flat(), problems, anonymous };
}

interface ToolServerOptions {
  /** Lists only read-only tools (BLUME_MCP_READ_ONLY, X-Blume-Read-Only). */
  readOnly: boolean;
  /** Told about a failure the agent cannot fix (an elicitation that broke); stdio prints it on stderr. */
  warn(message: string): void;
}

/** An MCP server with the tools found, and `blume_status` when a credential is missing or refused. */
export function createToolServer(context: ToolContext, found: FoundTools, options: ToolServerOptions): McpServer {
  const tools = found.tools.filter((tool) => !options.readOnly || tool.annotations.readOnlyHint);
  const server = new McpServer(SERVER_INFO, {
    capabilities: { tools: { listChanged: true } },
    instructions:
      'Blume: deploy static sites, read and write the forum, the Content API and the help desk of a community site. Production changes ' +
      '(deploy_promote, deploy_rollback, deploy_upload with promote, deploy_connect_repository) refuse without confirm: true and the ' +
      'confirmation_id a refusal answers, and say what would happen: show that to your human and ask before confirming (clients that ' +
      'support elicitation are asked directly). Each production change answers the call that undoes it. List tools take page and ' +
      'page_size; write tools that create something take an idempotency_key.' +
      (options.readOnly ? ' This server is read-only: it lists only tools that change nothing.' : '') +
      (found.problems.length ? ` Setup problems: ${found.problems.map((p) => p.message).join(' ')}` : ''),
  });
  for (const tool of tools) registerTool(server, context, tool, options);
  if (found.problems.length) registerStatusTool(server, found.problems);
  return server;
}

/** The input schema: no argument beyond the declared ones, and an unknown one is named with the valid ones. */
function strictInput(tool: ToolDefinition): z.ZodObject {
  const valid = Object.keys(tool.input);
  return z.strictObject(tool.input, {
    error: (issue) =>
      issue.code === 'unrecognized_keys'
        ? `Unknown argument${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((key) => `"${key}"`).join(', ')}: ${tool.name} takes ${
            valid.length ? valid.join(', ') : 'no arguments'
          }.`
        : undefined,
  });
}

/** The caller, for keys of cached answers: a digest of its credentials, never the credentials. */
function callerOf(client: BlumeClient): string {
  return createHash('sha256').update(client.secrets().join('\n')).digest('base64url');
}

function registerTool(server: McpServer, context: ToolContext, tool: ToolDefinition, options: ToolServerOptions): void {
  const { client } = context;
  const call: ToolCall = {
    ask: async (message) => {
      if (!server.server.getClientCapabilities()?.elicitation) return 'unavailable';
      try {
        const answer = await server.server.elicitInput({
          message,
          requestedSchema: {
            type: 'object',
            properties: { confirm: { type: 'boolean', title: 'Go ahead', description: message } },
            required: ['confirm'],
          },
        });
        return answer.action === 'accept' && answer.content?.confirm === true ? 'accepted' : 'declined';
      } catch (error) {
        options.warn(`Asking the human through the client failed: ${(error as Error).message}`);
        return 'unavailable';
      }
    },
  };
  server.registerTool(
    tool.name,
    {
      title: tool.title,
      description: tool.description,
      inputSchema: strictInput(tool),
      outputSchema: z.looseObject(tool.output),
      annotations: { title: tool.title, ...tool.annotations },
    },
    async (args: Record<string, unknown>): Promise<CallToolResult> => {
      try {
        const { idempotency_key: key, ...rest } = args;
        const answer =
          tool.creates && typeof key === 'string'
            ? await onceByKey(
                context.idempotency,
                { caller: callerOf(client), tool: tool.name, key, arguments: rest },
                () => tool.run(rest, call),
              )
            : await tool.run(rest, call);
        const structured = JSON.parse(client.scrub(JSON.stringify(answer.data))) as Record<string, unknown>;
        const text = client.scrub(resultText(answer.text, answer.data));
        return { content: [{ type: 'text', text }], structuredContent: structured };
      } catch (error) {
        if (!(error instanceof ToolFailure))
          throw new Error(client.scrub(`${tool.name} failed: ${(error as Error).message ?? String(error)}`));
        const result: CallToolResult = {
          content: [{ type: 'text', text: client.scrub(error.message) }],
          isError: true,
        };
        // Clients check structuredContent against the output schema even on errors: a refusal's details go in _meta.
        if (error.data) result._meta = JSON.parse(client.scrub(JSON.stringify(error.data))) as Record<string, unknown>;
        return result;
      }
    },
  );
}

function registerStatusTool(server: McpServer, problems: SetupProblem[]): void {
  const said = problems.map((problem) => problem.message).join(' ');
  server.registerTool(
    'blume_status',
    {
      title: 'Why Blume tools are missing',
      description: `Blume could not list all its tools: ${said} Call this tool for the details; fix the setting and restart.`,
      inputSchema: z.strictObject({}),
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    (): CallToolResult => ({ content: [{ type: 'text', text: said }], isError: true }),
  );
}

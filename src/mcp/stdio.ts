// `blume mcp`: the tool server on stdin/stdout for desktop agents, talking to a Blume over the
// network. Diagnostics go to stderr (stdout carries the protocol); no credential is ever printed. A
// credential that is missing or refused is said on stderr and by the `blume_status` tool it lists.
import { randomBytes } from 'node:crypto';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createMemoryCache } from '../adapters/cache/memory.js';
import { BlumeClient, ToolFailure } from './api.js';
import { Confirmations } from './confirmation.js';
import { credentialsFromEnv, ENV_NAMES, readOnlyFromEnv } from './credentials.js';
import { createToolServer, findTools } from './registry.js';
import { networkSender } from './senders.js';

export const MCP_HELP = `Usage: blume mcp

Runs the Blume MCP tool server on stdin/stdout (add it to an agent as the command \`blume mcp\`).
It talks to Blume over its public APIs; which tools it lists depends on the credentials:
  BLUME_URL            the portal (default BLUME_PUBLIC_URL, else http://localhost:8080)
  BLUME_DEPLOY_TOKEN   a deploy token: the 8 deploy_* tools (BLUME_SITE optional, the token knows its site)
  BLUME_TENANT_URL     a community site, e.g. https://community.example.com, with
    BLUME_FORUM_TOKEN  a member's forum token: the 5 forum_* tools (and, for an agent, the help desk)
    BLUME_API_KEY      an API key: cms_* tools (cms-read: the 3 read tools; cms-write: all 5) and
                       helpdesk_* tools (helpdesk-read: the 2 read tools; helpdesk-write: all 5)
  BLUME_MCP_READ_ONLY  true: list only the tools that change nothing
Production changes refuse without confirm: true and the confirmation_id a refusal answers, and say
what would happen; a missing or refused credential is named by the blume_status tool.`;

export async function runMcpCommand(
  env: NodeJS.ProcessEnv,
  stderr: NodeJS.WritableStream = process.stderr,
): Promise<number> {
  let client: BlumeClient;
  try {
    client = new BlumeClient(networkSender(), credentialsFromEnv(env));
  } catch (error) {
    if (!(error instanceof ToolFailure)) throw error;
    stderr.write(`blume mcp: ${error.message}\n`);
    return 2;
  }
  const context = {
    client,
    files: { kind: 'any' } as const,
    // One process is one session: ids and cached answers live as long as it does.
    confirmations: new Confirmations(randomBytes(32)),
    idempotency: createMemoryCache().cache,
  };
  const found = await findTools(context, ENV_NAMES);
  for (const problem of found.problems) stderr.write(`blume mcp: ${problem.message}\n`);
  const server = createToolServer(context, found, {
    readOnly: readOnlyFromEnv(env),
    warn: (message) => stderr.write(`blume mcp: ${message}\n`),
  });
  const transport = new StdioServerTransport();
  await server.connect(transport);
  // stdin's end (the agent went away) ends the server.
  await new Promise<void>((resolve) => process.stdin.once('end', resolve).once('close', resolve));
  await server.close();
  return 0;
}

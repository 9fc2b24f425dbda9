// The one registry of tool groups. Each group asks the API what its credential can do and answers
// the tools it may list; the server registers exactly those, through one wrapper that turns every
// failure into a tool error (isError) with no credential in it. A new group is one more entry in
// TOOL_GROUPS.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ToolFailure, type BlumeClient } from './api.js';
import type { ToolContext, ToolDefinition, ToolGroup } from './tool.js';
import { cmsTools } from './tools/cms.js';
import { deployTools } from './tools/deploy.js';
import { forumTools } from './tools/forum.js';
import { helpdeskTools } from './tools/helpdesk.js';

const TOOL_GROUPS: readonly ToolGroup[] = [deployTools, forumTools, cmsTools, helpdeskTools];

interface ToolServerOptions {
  /** Told why a group is not listed (a refused or unreachable credential); stdio prints it on stderr. */
  warn(message: string): void;
}

const SERVER_INFO = { name: 'blume', title: 'Blume', version: '1.0.0' };

/** An MCP server with the tools the client's credentials may use. */
export async function createToolServer(
  context: ToolContext,
  options: ToolServerOptions,
  groups: readonly ToolGroup[] = TOOL_GROUPS,
): Promise<McpServer> {
  const { client } = context;
  const server = new McpServer(SERVER_INFO, {
    capabilities: { tools: { listChanged: true } },
    instructions:
      'Blume: deploy static sites, read and write the forum, the Content API and the help desk of a community site. Production changes ' +
      '(deploy_promote, deploy_rollback, deploy_upload with promote, deploy_connect_repository) refuse without confirm: true ' +
      'and say what would happen: show that to your human and ask before confirming. Each production change answers the call that undoes it.',
  });
  const lists = await Promise.all(
    groups.map((group) =>
      group.tools(context).catch((error: unknown) => {
        options.warn(
          `The ${group.name} tools are not listed: ${client.scrub(error instanceof Error ? error.message : String(error))}`,
        );
        return [];
      }),
    ),
  );
  for (const tool of lists.flat()) registerTool(server, client, tool);
  return server;
}

function registerTool(server: McpServer, client: BlumeClient, tool: ToolDefinition): void {
  server.registerTool(
    tool.name,
    {
      title: tool.title,
      description: tool.description,
      inputSchema: tool.input,
      outputSchema: tool.output,
      annotations: { title: tool.title, ...tool.annotations },
    },
    async (args: Record<string, unknown>): Promise<CallToolResult> => {
      try {
        const answer = await tool.run(args);
        const structured = JSON.parse(client.scrub(JSON.stringify(answer.data))) as Record<string, unknown>;
        return { content: [{ type: 'text', text: client.scrub(answer.text) }], structuredContent: structured };
      } catch (error) {
        if (!(error instanceof ToolFailure))
          throw new Error(client.scrub(`${tool.name} failed: ${(error as Error).message ?? String(error)}`));
        return { content: [{ type: 'text', text: client.scrub(error.message) }], isError: true };
      }
    },
  );
}

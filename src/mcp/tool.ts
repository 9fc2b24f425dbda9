// What a tool is: its definition, answer, context and group. Tool groups (tools/) build on this, and
// the registry (registry.ts) lists the groups; keeping the two apart keeps imports one-way.
import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { Cache } from '../adapters/cache/index.js';
import type { BlumeClient, Credentials } from './api.js';
import type { Confirmations, ToolCall } from './confirmation.js';

export interface ToolAnswer<T> {
  /** The structured result (validated against the tool's output schema). */
  data: T;
  /** A one-line summary; the registry adds `data` as compact JSON after it (text.ts). */
  text: string;
}

export interface ToolDefinition {
  name: string;
  title: string;
  description: string;
  input: z.ZodRawShape;
  output: z.ZodRawShape;
  annotations: Required<Pick<ToolAnnotations, 'readOnlyHint' | 'destructiveHint' | 'idempotentHint' | 'openWorldHint'>>;
  /** Whether the tool creates something, and so takes an `idempotency_key` (idempotency.ts). */
  creates: boolean;
  run(args: Record<string, unknown>, call: ToolCall): Promise<ToolAnswer<Record<string, unknown>>>;
}

interface Hints {
  readOnly?: boolean;
  destructive?: boolean;
  idempotent?: boolean;
  /** Reaches past this Blume: mails a customer, calls an AI provider, links a git host. */
  openWorld?: boolean;
  /** Creates something (a release, a post, an entry): the tool takes an `idempotency_key`. */
  creates?: boolean;
}

const idempotencyKeyArg = z
  .string()
  .min(8)
  .max(200)
  .optional()
  .describe(
    'Any unique string (a UUID) for this one intended change: a retry with the same key and arguments answers the first result (for 24 hours) instead of creating a second.',
  );

/** One tool, typed by its own schemas. */
export function defineTool<I extends z.ZodRawShape, O extends z.ZodRawShape>(tool: {
  name: string;
  title: string;
  description: string;
  input: I;
  output: O;
  hints: Hints;
  run(args: z.infer<z.ZodObject<I>>, call: ToolCall): Promise<ToolAnswer<z.infer<z.ZodObject<O>>>>;
}): ToolDefinition {
  const readOnly = tool.hints.readOnly ?? false;
  const creates = tool.hints.creates ?? false;
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    input: creates ? { ...tool.input, idempotency_key: idempotencyKeyArg } : tool.input,
    output: tool.output,
    annotations: {
      readOnlyHint: readOnly,
      destructiveHint: readOnly ? false : (tool.hints.destructive ?? false),
      idempotentHint: readOnly ? true : (tool.hints.idempotent ?? false),
      openWorldHint: tool.hints.openWorld ?? false,
    },
    creates,
    run: (args, call) =>
      tool.run(args as z.infer<z.ZodObject<I>>, call) as Promise<ToolAnswer<Record<string, unknown>>>,
  };
}

/**
 * Which local paths tools that upload (`deploy_upload`, `deploy_build_source`) may read: any for
 * `blume mcp` (the agent's own machine), only under the site's own subfolder of one folder for
 * `{portal_url}/mcp` (the server's disk, shared by every site), or none.
 */
export type FileAccess = { kind: 'any' } | { kind: 'site-folders'; root: string } | { kind: 'none' };

export interface ToolContext {
  client: BlumeClient;
  files: FileAccess;
  /** Confirmation ids of production changes (confirmation.ts). */
  confirmations: Confirmations;
  /** Where answers of calls with an `idempotency_key` are cached (shared by every node over HTTP). */
  idempotency: Cache;
}

export interface ToolGroup {
  name: 'deploy' | 'forum' | 'cms' | 'helpdesk';
  /** The credential the group acts with for these credentials, if any (named in problems: registry.ts). */
  credential(credentials: Credentials): 'deployToken' | 'forumToken' | 'apiKey' | undefined;
  /** The group's tools this context's credential may use, asked of the API; none without a credential. */
  tools(context: ToolContext): Promise<ToolDefinition[]>;
}

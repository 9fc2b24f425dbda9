// What a tool is: its definition, answer, context and group. Tool groups (tools/) build on this, and
// the registry (registry.ts) lists the groups; keeping the two apart keeps imports one-way.
import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
import type { BlumeClient } from './api.js';

interface ToolAnswer<T> {
  /** The structured result (validated against the tool's output schema). */
  data: T;
  /** A short rendering for the agent's transcript. */
  text: string;
}

export interface ToolDefinition {
  name: string;
  title: string;
  description: string;
  input: z.ZodRawShape;
  output: z.ZodRawShape;
  annotations: Required<Pick<ToolAnnotations, 'readOnlyHint' | 'destructiveHint' | 'idempotentHint' | 'openWorldHint'>>;
  run(args: Record<string, unknown>): Promise<ToolAnswer<Record<string, unknown>>>;
}

type Hints = { readOnly?: boolean; destructive?: boolean; idempotent?: boolean };

/** One tool, typed by its own schemas; `openWorldHint` is false for all (they reach one Blume only). */
export function defineTool<I extends z.ZodRawShape, O extends z.ZodRawShape>(tool: {
  name: string;
  title: string;
  description: string;
  input: I;
  output: O;
  hints: Hints;
  run(args: z.infer<z.ZodObject<I>>): Promise<ToolAnswer<z.infer<z.ZodObject<O>>>>;
}): ToolDefinition {
  const readOnly = tool.hints.readOnly ?? false;
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    input: tool.input,
    output: tool.output,
    annotations: {
      readOnlyHint: readOnly,
      destructiveHint: readOnly ? false : (tool.hints.destructive ?? false),
      idempotentHint: readOnly ? true : (tool.hints.idempotent ?? false),
      openWorldHint: false,
    },
    run: (args) => tool.run(args as z.infer<z.ZodObject<I>>) as Promise<ToolAnswer<Record<string, unknown>>>,
  };
}

/**
 * Which local paths tools that upload (`deploy_upload`, `deploy_build_source`) may read: any for
 * `blume mcp` (the agent's own machine), only under one folder for `{portal_url}/mcp` (the
 * server's disk), or none.
 */
export type FileAccess = { kind: 'any' } | { kind: 'under'; root: string } | { kind: 'none' };

export interface ToolContext {
  client: BlumeClient;
  files: FileAccess;
}

export interface ToolGroup {
  name: 'deploy' | 'forum' | 'cms' | 'helpdesk';
  /** The group's tools this context's credential may use, asked of the API; none without a credential. */
  tools(context: ToolContext): Promise<ToolDefinition[]>;
}

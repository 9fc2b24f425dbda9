// docs/mcp.md, word for word: its commands run with `sh` against a running `blume serve` set up as
// the README's quick start does, the placeholders put in as a reader would. Both transports answer
// the deploy token's 8 tools, read-only mode its 2 read tools, a list tool says how to page, and a
// request without a credential answers 401 pointing at the protected-resource metadata.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { docCommands, startReaderServer, stepOf, type ReaderServer } from '../helpers/doc-commands.js';

const DEPLOY_TOOLS = [
  'deploy_build_source',
  'deploy_connect_repository',
  'deploy_get_build',
  'deploy_list_releases',
  'deploy_promote',
  'deploy_rollback',
  'deploy_stage',
  'deploy_upload',
];

/** The JSON-RPC answers of an output: one message a line (stdio), or server-sent events (HTTP). */
function messages(output: string): Array<{ result?: Record<string, unknown> }> {
  return output
    .split('\n')
    .map((line) => (line.startsWith('data: ') ? line.slice(6) : line))
    .filter((json) => json.startsWith('{"jsonrpc"') || json.startsWith('{"result"'))
    .map((json) => JSON.parse(json) as { result?: Record<string, unknown> });
}

/** The tool names of a tools/list answer. */
function toolNames(output: string): string[] {
  for (const message of messages(output)) {
    const tools = message.result?.tools as Array<{ name: string }> | undefined;
    if (tools) return tools.map((tool) => tool.name).sort();
  }
  throw new Error(`no tools/list answer in:\n${output}`);
}

type Check = (stdout: string, reader: ReaderServer) => void;

const RULES = [
  {
    pattern: /^(?!.*x-blume-read-only).*"method":"tools\/list"\}' http:\/\/localhost:8080\/mcp$/,
    step: (): Check => (stdout) => {
      if (stdout.startsWith('HTTP/')) {
        // No credential: 401, the challenge naming the metadata, a problem naming the headers.
        assert.match(stdout, /^HTTP\/1\.1 401/);
        assert.match(
          stdout,
          /www-authenticate: Bearer realm="blume", resource_metadata="http:\/\/localhost:\d+\/\.well-known\/oauth-protected-resource"/i,
        );
        assert.match(
          stdout,
          /"detail":"No credential was given: set Authorization \(Bearer deploy token\), or .*"code":"authentication_required"/,
        );
      } else assert.deepEqual(toolNames(stdout), DEPLOY_TOOLS);
    },
  },
  {
    pattern: /x-blume-read-only: true/,
    step: (): Check => (stdout) => assert.deepEqual(toolNames(stdout), ['deploy_get_build', 'deploy_list_releases']),
  },
  {
    pattern: /"name":"deploy_list_releases","arguments":\{"page_size":5\}/,
    step: (): Check => (stdout) => {
      const result = messages(stdout)[0]!.result as { content: Array<{ text: string }>; structuredContent: object };
      assert.match(result.content[0]!.text, /page 1 of 1 \(0 in all\); this is the last page/);
      assert.deepEqual((result.structuredContent as { pagination: object }).pagination, {
        page: 1,
        page_size: 5,
        total: 0,
        total_pages: 1,
      });
    },
  },
  {
    pattern: /npx blume mcp$/,
    step: (): Check => (stdout) => assert.deepEqual(toolNames(stdout), DEPLOY_TOOLS),
  },
  {
    pattern: /^curl http:\/\/localhost:8080\/\.well-known\/oauth-protected-resource$/,
    step: (): Check => (stdout) => {
      const metadata = JSON.parse(stdout) as { resource: string; bearer_methods_supported: string[] };
      assert.match(metadata.resource, /^http:\/\/localhost:\d+\/mcp$/);
      assert.deepEqual(metadata.bearer_methods_supported, ['header']);
    },
  },
];

describe('docs/mcp.md, as written', () => {
  let reader: ReaderServer;
  before(async () => {
    reader = await startReaderServer('hello');
  });
  after(() => reader?.close());

  it('runs every command of the page', async () => {
    const commands = await docCommands('docs/mcp.md');
    assert.deepEqual(
      commands.map((c) => c.section),
      [
        'Results, arguments and paging',
        'Read-only mode',
        'Run it beside an agent (stdio)',
        'Over HTTP (`/mcp`)',
        'Over HTTP (`/mcp`)',
        'Over HTTP (`/mcp`)',
      ],
    );
    for (const { section, command } of commands) {
      const check = stepOf('docs/mcp.md', RULES, section, command);
      const result = await reader.run(command);
      assert.equal(result.status, 0, `${command}\n${result.stdout}\n${result.stderr}`);
      check(result.stdout, reader);
      assert.ok(
        !result.stdout.includes(reader.deployToken) && !result.stderr.includes(reader.deployToken),
        'the token is never printed',
      );
    }
  });
});

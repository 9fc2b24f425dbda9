// docs/mcp.md, word for word: its commands run with `sh` against a running `blume serve` set up as
// the README's quick start does, the placeholders put in as a reader would. Both transports answer
// the deploy token's 8 tools.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { docCommands, startReaderServer, type ReaderServer } from '../helpers/doc-commands.js';

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

/** The tool names of a tools/list answer: one JSON-RPC message a line (stdio), or server-sent events (HTTP). */
function toolNames(output: string): string[] {
  for (const line of output.split('\n')) {
    const json = line.startsWith('data: ') ? line.slice(6) : line;
    if (!json.startsWith('{')) continue;
    const message = JSON.parse(json) as { result?: { tools?: Array<{ name: string }> } };
    if (message.result?.tools) return message.result.tools.map((tool) => tool.name).sort();
  }
  throw new Error(`no tools/list answer in:\n${output}`);
}

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
      ['Run it beside an agent (stdio)', 'Over HTTP (`/mcp`)'],
    );
    for (const { command } of commands) {
      const result = await reader.run(command);
      assert.equal(result.status, 0, `${command}\n${result.stdout}\n${result.stderr}`);
      assert.deepEqual(toolNames(result.stdout), DEPLOY_TOOLS, command);
      assert.ok(
        !result.stdout.includes(reader.deployToken) && !result.stderr.includes(reader.deployToken),
        'the token is never printed',
      );
    }
  });
});

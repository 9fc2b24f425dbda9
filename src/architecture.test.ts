// The dependency rule (docs/ARCHITECTURE.md, "Layers"): lib <- config/db/adapters <- http <- core
// and jobs <- domains <- app/cli, no domain importing another domain's tables.ts or plugin.ts,
// app.ts importing only the domains' plugins, no cycles (type-only ones included). The rules live in .dependency-cruiser.json; this runs them on src/ and checks
// that they bite on a tree that breaks each one.
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { cruise, type ICruiseResult } from 'dependency-cruiser';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

async function violations(root: string, withTsConfig: boolean): Promise<string[]> {
  const config = JSON.parse(await readFile(path.join(ROOT, '.dependency-cruiser.json'), 'utf8')) as {
    forbidden: unknown[];
    options: Record<string, unknown>;
  };
  const before = process.cwd();
  process.chdir(root);
  try {
    const { tsConfig, ...rest } = config.options;
    const options = {
      ...rest,
      ...(withTsConfig ? { tsConfig } : {}),
      validate: true,
      ruleSet: { forbidden: config.forbidden },
    };
    const result = await cruise(['src'], options as Parameters<typeof cruise>[1]);
    const output = result.output as ICruiseResult;
    return output.summary.violations.map((violation) => `${violation.rule.name}: ${violation.from} -> ${violation.to}`);
  } finally {
    process.chdir(before);
  }
}

describe('the dependency rule', () => {
  it('holds in src/', async () => {
    assert.deepEqual(await violations(ROOT, true), []);
  });

  it('catches a tree that breaks each rule', async () => {
    const root = await mkdtemp(path.join(tmpdir(), 'blume-layers-'));
    try {
      const files: Record<string, string> = {
        'src/lib/leaf.ts': "import { helper } from '../http/helper.js';\nexport const leaf = helper;\n",
        'src/http/helper.ts':
          "import type { Site } from '../core/sites/service.js';\nexport const helper = 1;\nexport type S = Site;\n",
        'src/core/sites/service.ts': 'export interface Site { id: string }\n',
        'src/forum/topics.ts':
          "import { builds } from '../deploy/builds/tables.js';\nimport { start } from '../cli/start.js';\nexport const topics = [builds, start];\n",
        'src/deploy/builds/tables.ts': 'export const builds = 1;\n',
        'src/cli/start.ts': 'export const start = 1;\n',
        'src/deploy/a.ts': "import type { B } from './b.js';\nexport interface A { b?: B }\n",
        'src/deploy/b.ts': "import type { A } from './a.js';\nexport interface B { a?: A }\n",
        // app.ts building a domain's service instead of registering the domain's plugin.
        'src/app.ts':
          "import { TopicPageMarks } from './forum/page-marks.js';\nimport { forumPlugin } from './forum/plugin.js';\nexport const app = [new TopicPageMarks(), forumPlugin];\n",
        'src/forum/page-marks.ts': 'export class TopicPageMarks {}\n',
        'src/forum/plugin.ts': 'export const forumPlugin = 1;\n',
        // A domain composing another domain, and a domain outside any list reading another's tables.
        'src/cms/plugin.ts':
          "import { forumPlugin } from '../forum/plugin.js';\nexport const cmsPlugin = forumPlugin;\n",
        'src/console/views.ts': "import type { Workspace } from '../purchase/tables.js';\nexport type W = Workspace;\n",
        'src/purchase/tables.ts': 'export interface Workspace { id: string }\n',
      };
      for (const [file, text] of Object.entries(files)) {
        await mkdir(path.dirname(path.join(root, file)), { recursive: true });
        await writeFile(path.join(root, file), text);
      }
      const found = (await violations(root, false)).map((line) => line.split(':')[0]);
      for (const rule of [
        'lib-is-a-leaf',
        'http-sits-below-core',
        'no-other-domains-tables',
        'app-composes-domain-plugins',
        'no-other-domains-plugin',
        'domains-sit-below-app-and-cli',
        'no-cycles',
      ]) {
        assert.ok(found.includes(rule), `${rule} in ${JSON.stringify(found)}`);
      }
      const all = await violations(root, false);
      assert.ok(
        all.includes('no-other-domains-tables: src/console/views.ts -> src/purchase/tables.ts'),
        JSON.stringify(all),
      );
      assert.ok(
        all.includes('app-composes-domain-plugins: src/app.ts -> src/forum/page-marks.ts'),
        JSON.stringify(all),
      );
      assert.ok(!all.includes('app-composes-domain-plugins: src/app.ts -> src/forum/plugin.ts'), JSON.stringify(all));
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});

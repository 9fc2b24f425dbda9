// Accessibility checks in the browser tests: axe-core run inside the page, failing on any violation
// of serious or critical impact (the bar the UI issues set), listing each with the nodes it found.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/**
 * Fails when axe finds a serious or critical violation on the page as it is now. Pages with a
 * Content-Security-Policy need their context opened with `bypassCSP: true` for axe's script.
 */
export async function assertAccessible(page: Page, what: string): Promise<void> {
  await page.addScriptTag({ content: axeSource });
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(): Promise<{ violations: Violation[] }> } }).axe;
    return (await axe.run()).violations;
  });
  const grave = violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map(
      (violation) =>
        `${violation.impact} ${violation.id}: ${violation.help} (${violation.nodes
          .map((node) => node.target.join(' '))
          .join(', ')})`,
    );
  assert.deepEqual(grave, [], `axe on ${what}`);
}

// A docs folder made of fastify's and pino's own docs, as their npm packages ship them (read from
// node_modules, never copied into the repository), for the docs build test and benchmark.
import { cp, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

export async function writeFastifyPinoDocs(input: string): Promise<void> {
  await cp('node_modules/fastify/docs', path.join(input, 'fastify'), { recursive: true });
  // pino's pages link each other as /docs/<page>.md: they live in docs/.
  await cp('node_modules/pino/docs', path.join(input, 'docs'), { recursive: true });
  // Two links that are broken in the packages themselves (the build refuses broken links).
  await writeFile(
    path.join(input, 'fastify/Guides/Contributing.md'),
    '# Contributing\n\nNot shipped in the npm package.\n',
  );
  const diagnostics = path.join(input, 'docs/diagnostics.md');
  await writeFile(diagnostics, (await readFile(diagnostics, 'utf8')).replace('](tc)', '](#diagnostics)'));
  await writeFile(
    path.join(input, 'index.md'),
    '# Fastify and pino\n\nStart with [Fastify](fastify/index.md) or [pino](docs/api.md).\n',
  );
}

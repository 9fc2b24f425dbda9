// The sandboxed build's entry (build-entry.ts) and every module it loads, bundled with esbuild into
// one folder: the build process then reads a few files at start instead of resolving and loading
// hundreds from dist/ and node_modules/ under the permission model, and may read nothing else.
// `npm run build` makes dist/deploy/build/entry/ with it (`node dist/deploy/build/entry-bundle.js`);
// under tsx (tests, `npm run dev`) sandboxed-build.ts bundles the sources once per process.
// esbuild is a development dependency: it is imported only here, and only when bundling.
import { copyFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DIAGRAMS_RENDERER_FILE, DIAGRAMS_RENDERER_PACKAGE } from './diagrams-renderer.js';

/** The folder, next to the compiled build-entry.js, that `npm run build` bundles it into. */
export const DIST_BUNDLE_DIR = 'entry';
export const BUNDLE_ENTRY_FILE = 'build-entry.mjs';

/** Bundles `source` (build-entry.ts or its compiled .js) into `outDir`; returns the entry script's path. */
export async function bundleBuilderEntry(source: string, outDir: string): Promise<string> {
  const { build } = await import('esbuild');
  await build({
    entryPoints: { [BUNDLE_ENTRY_FILE.replace(/\.mjs$/, '')]: source },
    outdir: outDir,
    outExtension: { '.js': '.mjs' },
    // Modules a build imports only when a page needs them (KaTeX, the HTML sanitizer) stay in files
    // of their own, read only then.
    splitting: true,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'silent',
    // CommonJS packages inside an ESM bundle call require() for Node built-ins.
    banner: {
      js: "import { createRequire as __blumeCreateRequire } from 'node:module'; const require = __blumeCreateRequire(import.meta.url);",
    },
  });
  await copyFile(
    createRequire(import.meta.url).resolve(DIAGRAMS_RENDERER_PACKAGE),
    path.join(outDir, DIAGRAMS_RENDERER_FILE),
  );
  return path.join(outDir, BUNDLE_ENTRY_FILE);
}

// `node dist/deploy/build/entry-bundle.js` (the last step of `npm run build`).
const self = fileURLToPath(import.meta.url);
if (self.endsWith('.js') && process.argv[1] !== undefined && path.resolve(process.argv[1]) === self) {
  const here = path.dirname(self);
  await bundleBuilderEntry(path.join(here, 'build-entry.js'), path.join(here, DIST_BUNDLE_DIR));
}

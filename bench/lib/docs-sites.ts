// The generated Markdown site of bench:docs: sections of pages with prose, code, a table, a task list
// and links, written as Blume reads it and as a Hugo site with a small theme doing what Blume's does.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';

export const SECTIONS = 10;

function pageBody(section: number, index: number, perSection: number): string {
  const next = (index + 1) % perSection;
  const other = (section + 1) % SECTIONS;
  return `
Page ${index} of section ${section} explains **widgets**, _gadgets_ and \`sprockets\` in some depth, with
a [link to the next page](page-${next}.md) and one [to another section](../section-${other}/page-${index % perSection}.md#usage).

## Overview

${'Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et dolore magna aliqua. '.repeat(4)}

## Usage

\`\`\`ts
export function configure(name: string, retries = 3): Promise<void> {
  const started = Date.now(); // measure
  return run({ name, retries, started });
}
\`\`\`

| Option | Default | Meaning |
| ------ | ------- | ------- |
| retries | 3 | how often to retry |
| timeout | 30s | when to give up |

### Details

- [x] works offline
- [ ] works on Mars

${'Ut enim ad minim veniam, quis nostrud exercitation ullamco laboris nisi ut aliquip ex ea commodo consequat. '.repeat(3)}

## Reference

\`\`\`bash
acme run --name demo --retries 5
\`\`\`
`;
}

/** Writes the generated site: `pages` pages in SECTIONS folders, as Blume or as a Hugo site reads them. */
export async function generateDocsSite(root: string, flavour: 'blume' | 'hugo', pages: number): Promise<void> {
  const perSection = pages / SECTIONS;
  const content = flavour === 'hugo' ? path.join(root, 'content') : root;
  for (let s = 0; s < SECTIONS; s += 1) {
    const dir = path.join(content, `section-${s}`);
    await mkdir(dir, { recursive: true });
    await writeFile(
      path.join(dir, flavour === 'hugo' ? '_index.md' : 'index.md'),
      `---\ntitle: Section ${s}\nweight: ${s}\norder: ${s}\n---\n\nAll about section ${s}.\n`,
    );
    await Promise.all(
      Array.from({ length: perSection }, (_, i) =>
        writeFile(
          path.join(dir, `page-${i}.md`),
          `---\ntitle: Page ${s}.${i}\ndescription: Page ${i} of section ${s}\norder: ${i}\nweight: ${i}\n---\n${pageBody(s, i, perSection)}`,
        ),
      ),
    );
  }
  await writeFile(
    path.join(content, flavour === 'hugo' ? '_index.md' : 'index.md'),
    '---\ntitle: Bench docs\n---\n\nWelcome.\n',
  );
  if (flavour === 'hugo') await writeHugoSite(root);
}

/** A small Hugo theme doing what Blume's does: full navigation, table of contents, highlighting. */
async function writeHugoSite(root: string): Promise<void> {
  await mkdir(path.join(root, 'layouts', '_default'), { recursive: true });
  await writeFile(
    path.join(root, 'hugo.toml'),
    `baseURL = "https://bench.test/"\ntitle = "Bench docs"\ndisableKinds = ["taxonomy", "term", "RSS"]\n[markup.highlight]\nnoClasses = false\n[markup.tableOfContents]\nstartLevel = 2\nendLevel = 3\n`,
  );
  await writeFile(
    path.join(root, 'layouts', '_default', 'baseof.html'),
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{{ .Title }} · {{ .Site.Title }}</title></head><body>
<nav>{{ partialCached "nav.html" . .Section }}</nav>
<main>{{ block "main" . }}{{ end }}</main></body></html>`,
  );
  // Cached per section, as Blume renders closed sections once.
  await mkdir(path.join(root, 'layouts', 'partials'), { recursive: true });
  await writeFile(
    path.join(root, 'layouts', 'partials', 'nav.html'),
    `<ul><li><a href="/">Home</a></li>{{ range .Site.Sections }}<li><details{{ if eq $.Section .Section }} open{{ end }}><summary><a href="{{ .RelPermalink }}">{{ .Title }}</a></summary><ul>{{ range .Pages }}<li><a href="{{ .RelPermalink }}">{{ .Title }}</a></li>{{ end }}</ul></details></li>{{ end }}</ul>`,
  );
  await writeFile(
    path.join(root, 'layouts', '_default', 'single.html'),
    `{{ define "main" }}<aside>{{ .TableOfContents }}</aside><article><h1>{{ .Title }}</h1>{{ .Content }}</article>{{ end }}`,
  );
  await writeFile(
    path.join(root, 'layouts', '_default', 'list.html'),
    `{{ define "main" }}<article><h1>{{ .Title }}</h1>{{ .Content }}<ul>{{ range .Pages }}<li><a href="{{ .RelPermalink }}">{{ .Title }}</a></li>{{ end }}</ul></article>{{ end }}`,
  );
}

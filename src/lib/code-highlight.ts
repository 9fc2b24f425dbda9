// Code highlighted on the server, once, where the HTML is made: docs builds (src/deploy/build) and forum
// posts (src/forum/markdown.ts). highlight.js's common languages plus the ones deploy and ops pages
// show (HTTP, Dockerfile, nginx, HCL); the output is `<span class="hljs-…">` around escaped text.
import hljs from 'highlight.js/lib/common';
import dockerfile from 'highlight.js/lib/languages/dockerfile';
import http from 'highlight.js/lib/languages/http';
import nginx from 'highlight.js/lib/languages/nginx';
import type { HLJSApi, Language } from 'highlight.js';

/** HCL (Terraform): blocks, attributes, strings with interpolation, comments, numbers. */
function hcl(api: HLJSApi): Language {
  return {
    name: 'HCL',
    aliases: ['terraform', 'tf'],
    keywords: { keyword: 'for in if else endif endfor', literal: 'true false null' },
    contains: [
      api.HASH_COMMENT_MODE,
      api.C_LINE_COMMENT_MODE,
      api.C_BLOCK_COMMENT_MODE,
      {
        scope: 'string',
        begin: '"',
        end: '"',
        contains: [api.BACKSLASH_ESCAPE, { scope: 'subst', begin: /\$\{/, end: /\}/ }],
      },
      { scope: 'string', begin: /<<-?\s*(\w+)/, end: /^\s*\w+$/, excludeBegin: false },
      { scope: 'number', begin: /\b\d+(\.\d+)?\b/ },
      { scope: 'attr', begin: /^\s*[A-Za-z_][\w-]*(?=\s*=)/ },
      { scope: 'title', begin: /^\s*[A-Za-z_][\w-]*(?=(\s+"[^"]*")*\s*\{)/ },
    ],
  };
}

hljs.registerLanguage('http', http);
hljs.registerLanguage('dockerfile', dockerfile);
hljs.registerLanguage('nginx', nginx);
hljs.registerLanguage('hcl', hcl);
hljs.registerAliases(['conf', 'cfg', 'properties', 'editorconfig'], { languageName: 'ini' });
// Svelte components are HTML with <script> and <style>, which the XML grammar highlights inside.
hljs.registerAliases(['svelte', 'vue'], { languageName: 'xml' });

/** The highlighted HTML of `code` in `lang`, or undefined when the language is none or unknown. */
export function highlightCode(code: string, lang: string): string | undefined {
  if (lang === '' || hljs.getLanguage(lang) === undefined) return undefined;
  return hljs.highlight(code, { language: lang, ignoreIllegals: true }).value;
}

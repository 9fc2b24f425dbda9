// Mermaid's dependency-free build, which a docs site with a diagram ships (decision 0135): the
// bundler copies it beside the bundled build entry, since the sandbox reads only the bundle's folder.
export const DIAGRAMS_RENDERER_FILE = 'mermaid.tiny.js';
export const DIAGRAMS_RENDERER_PACKAGE = '@mermaid-js/tiny';

// Refuses a Node older than Blume supports, in one line that says how to get a current one. Run by
// `blume` (bin/blume.js imports it first) and by `npm start` (its prestart step runs it before compiling).
// Plain JavaScript that any Node can parse, so an old Node reaches the message instead of a syntax error.
const MINIMUM_MAJOR = 22;

const major = Number(process.versions.node.split('.')[0]);
if (major < MINIMUM_MAJOR) {
  console.error(
    `blume: Node ${process.version} is too old; Blume needs Node ${MINIMUM_MAJOR} or newer: install the current LTS from https://nodejs.org/en/download (or \`nvm install --lts\`).`,
  );
  process.exit(1);
}

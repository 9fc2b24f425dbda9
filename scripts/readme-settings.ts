// Prints the README's settings table from the configuration schema: `npx tsx scripts/readme-settings.ts`.
import { variables } from '../src/config/index.js';

for (const v of variables) console.log(`| \`${v.name}\` | ${v.default ? `\`${v.default}\`` : ''} | ${v.doc} |`);

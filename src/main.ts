// Process entry of the `blume` command.
import { runCli } from './cli/index.js';

const code = await runCli(process.argv.slice(2));
// `serve` keeps the process alive through its server; every other command ends here.
if (process.argv[2] !== 'serve' || code !== 0) process.exit(code);

// Entry points for child processes and worker threads sit next to the module that starts them; from
// dist/ they are .js files, under tsx (tests, `npm run dev`) the .ts sources.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The file of module `name` in the folder of `moduleUrl`, with the same extension. */
export function siblingModule(moduleUrl: string, name: string): string {
  const self = fileURLToPath(moduleUrl);
  return path.join(path.dirname(self), `${name}${path.extname(self)}`);
}

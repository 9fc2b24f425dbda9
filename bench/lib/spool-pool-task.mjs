// Piscina loads this file in each of its threads: TypeScript through tsx, then the batch handler.
import { register } from 'tsx/esm/api';

register();
const task = await import('./spool-pool-task.ts');
export default task.default;

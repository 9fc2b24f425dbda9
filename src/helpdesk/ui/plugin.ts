// The requester's help desk pages on community hosts, in a page scope of their own with the forum
// UI's frame (security headers, form parser, HTML error pages).
import type { FastifyInstance } from 'fastify';
import { registerPageFrame } from '../../forum/ui/plugin.js';
import { requesterRoutes } from './routes.js';

export async function helpdeskPagesPlugin(app: FastifyInstance): Promise<void> {
  await registerPageFrame(app);
  await app.register(requesterRoutes);
}

// The CMS editor's pages on community hosts, in a page scope of their own with the forum UI's frame
// (security headers, form parser, HTML error pages).
import type { FastifyInstance } from 'fastify';
import { registerPageFrame } from '../../forum/ui/page-frame.js';
import { editorRoutes } from './routes.js';

export async function cmsEditorPlugin(app: FastifyInstance): Promise<void> {
  await registerPageFrame(app);
  await app.register(editorRoutes);
}

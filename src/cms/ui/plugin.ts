// The CMS editor's pages on community hosts, in a page scope of their own with the forum UI's frame
// (security headers, form parser, HTML error pages). Scripts of this origin may run: the entry form's
// Markdown toolbar and live preview (editor-script.js.ts); every page works without them.
import type { FastifyInstance } from 'fastify';
import { registerPageFrame } from '../../forum/ui/page-frame.js';
import { editorRoutes } from './routes.js';

export async function cmsEditorPlugin(app: FastifyInstance): Promise<void> {
  await registerPageFrame(app, { scripts: true });
  await app.register(editorRoutes);
}

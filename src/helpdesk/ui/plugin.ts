// The help desk's pages on community hosts, each in a page scope of its own with the forum UI's
// frame (security headers, form parser, HTML error pages): the requester's pages under /support,
// without script, and the agent inbox under /desk, whose pages may load its one script.
import type { FastifyInstance } from 'fastify';
import { registerPageFrame } from '../../forum/ui/page-frame.js';
import { adminPages } from './admin-pages.js';
import { inboxRoutes } from './inbox-routes.js';
import { reportPages } from './report-pages.js';
import { requesterRoutes } from './routes.js';

export async function helpdeskPagesPlugin(app: FastifyInstance): Promise<void> {
  await app.register(async (requester) => {
    await registerPageFrame(requester);
    await requester.register(requesterRoutes);
  });
  await app.register(async (inbox) => {
    await registerPageFrame(inbox, { scripts: true });
    inbox.decorateRequest('helpdesk', null as never);
    await inbox.register(inboxRoutes);
    await inbox.register(reportPages);
    await inbox.register(adminPages);
  });
}

// The forum web UI on community hosts: server-rendered pages that work without JavaScript. An
// encapsulated plugin, so its security headers, form parser and HTML error pages (page-frame.ts)
// stay with its routes.
import type { FastifyInstance } from 'fastify';
import { accountRoutes } from './account-routes.js';
import { registerPageFrame } from './page-frame.js';
import { avatarRoutes } from './avatar-routes.js';
import { adminRoutes } from './admin/routes.js';
import { mailRoutes } from './mail-routes.js';
import { discoveryRoutes } from './discovery.js';
import { readRoutes } from './read-routes.js';
import { flagRoutes } from './flag-routes.js';
import { moderationUiRoutes } from './moderation-routes.js';
import { notificationRoutes } from './notification-routes.js';
import { writeRoutes } from './write-routes.js';
import { composeRoutes } from './compose-routes.js';

export async function forumUiPlugin(app: FastifyInstance): Promise<void> {
  // Members' pages load the forum script (forum-script.js.ts); every page works without it.
  await registerPageFrame(app, { scripts: true });
  await app.register(readRoutes);
  await app.register(discoveryRoutes);
  await app.register(accountRoutes);
  await app.register(avatarRoutes);
  await app.register(writeRoutes);
  await app.register(composeRoutes);
  await app.register(notificationRoutes);
  await app.register(flagRoutes);
  await app.register(moderationUiRoutes);
  await app.register(mailRoutes);
  await app.register(adminRoutes);
}

// Makes the per-node settings directory available to every surface as `app.instanceSettings`.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { SettingsDirectory } from './directory.js';

declare module 'fastify' {
  interface FastifyInstance {
    instanceSettings: SettingsDirectory;
  }
}

export const settingsPlugin = fp(
  async (app: FastifyInstance) => {
    const directory = new SettingsDirectory(app.deps.database.db, app.deps.cache.pubsub);
    await directory.start();
    app.decorate('instanceSettings', directory);
    app.addHook('onClose', () => directory.stop());
  },
  { name: 'blume-instance-settings' },
);

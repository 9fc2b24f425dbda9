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
    app.decorate('instanceSettings', new SettingsDirectory(app.deps.database.db, app.services.epochs));
  },
  { name: 'blume-instance-settings' },
);

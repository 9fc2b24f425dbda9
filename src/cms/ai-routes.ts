// `POST /ai-content/generate` (DESIGN section 11): Business plan, cms-write, the site's own provider.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { cmsAccess } from './access.js';
import { aiSettingsOf, generateDraft } from './ai-drafting.js';
import { sourceContext } from './sources.js';
import { relationLookup } from './stored-source.js';
import { presentEntry } from './presenters.js';
import { authorOf } from './revision-log.js';
import { EntryOut, cmsSecurity } from './schemas.js';

const GenerateBody = Type.Object(
  {
    type: Type.String({ minLength: 1, maxLength: 100, description: 'The content type to draft an entry of.' }),
    prompt: Type.String({ minLength: 1, maxLength: 10_000 }),
    fields: Type.Optional(
      Type.Array(Type.String({ maxLength: 40 }), {
        minItems: 1,
        maxItems: 100,
        uniqueItems: true,
        description: 'Fields to fill; default every text-like field.',
      }),
    ),
    entry: Type.Optional(
      Type.String({ minLength: 1, maxLength: 200, description: 'An entry (id or slug) the model sees as it is now.' }),
    ),
    save_as_draft: Type.Optional(
      Type.Boolean({ default: false, description: 'Save the values as a new draft entry.' }),
    ),
  },
  { additionalProperties: false },
);

const GenerateOut = Type.Object({
  data: Type.Object({}, { additionalProperties: true, description: 'Field values that validate against the type.' }),
  entry: Type.Optional(EntryOut),
});

export async function aiRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.post(
    '/ai-content/generate',
    {
      schema: {
        tags: ['ai'],
        summary: "Draft field values with the site owner's AI provider; saves nothing unless save_as_draft",
        security: cmsSecurity,
        body: GenerateBody,
        response: { 200: GenerateOut },
      },
      preHandler: cmsAccess('cms-write'),
    },
    async (request) => {
      const { site } = request.cms;
      await app.services.plans.require(site, 'ai');
      const ai = aiSettingsOf(await app.instanceSettings.applied(site.id), app.deps.config, request.log);
      const draft = await generateDraft(
        app.deps.database.db,
        site.id,
        ai,
        request.body,
        relationLookup(sourceContext(app, site, request.cms.caller)),
        { author: authorOf(request.cms.caller) },
      );
      return { data: draft.data, ...(draft.entry ? { entry: presentEntry(draft.type, draft.entry) } : {}) };
    },
  );
}

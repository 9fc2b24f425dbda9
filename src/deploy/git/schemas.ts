import { Type, type Static } from 'typebox';
import { BRANCH_PATTERN, REPOSITORY_PATTERN } from './fetch.js';

const Kind = Type.Union([Type.Literal('markdown'), Type.Literal('static')], {
  description: 'markdown: build the folder as a docs site; static: serve the folder as it is.',
});

export const ConnectionBody = Type.Object(
  {
    repository: Type.String({
      pattern: REPOSITORY_PATTERN,
      description: '`owner/name`, fetched from the configured git host (BLUME_GIT_BASE_URL).',
    }),
    branch: Type.String({
      minLength: 1,
      maxLength: 200,
      pattern: BRANCH_PATTERN,
      description:
        'Pushes to this branch build promotable releases; pushes to other branches build preview-only releases.',
    }),
    path: Type.Optional(
      Type.String({
        maxLength: 1024,
        description: 'Folder inside the repository to build or serve; the root when absent.',
      }),
    ),
    kind: Kind,
  },
  { additionalProperties: false },
);
export type ConnectionBody = Static<typeof ConnectionBody>;

export const ConnectionOut = Type.Object({
  repository: Type.String(),
  branch: Type.String(),
  path: Type.String({ description: "'' for the repository root." }),
  kind: Kind,
  webhook_url: Type.String({ description: 'Payload URL of the push webhook (content type application/json).' }),
});

export const ConnectedOut = Type.Object({
  ...ConnectionOut.properties,
  webhook_secret: Type.String({
    description: 'Secret of the webhook, shown only in this answer; a new PUT makes a new one.',
  }),
});

export const WebhookOut = Type.Object({
  status: Type.Union([
    Type.Literal('pong'),
    Type.Literal('ignored'),
    Type.Literal('duplicate'),
    Type.Literal('queued'),
  ]),
  reason: Type.Optional(Type.String()),
  build_id: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  promotable: Type.Optional(Type.Boolean()),
});

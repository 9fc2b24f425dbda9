import { Type, type Static } from 'typebox';
import { PREVIEW_LINK_MAX_SECONDS, PREVIEW_LINK_MIN_SECONDS } from './preview-links.js';

export const DeploySiteParams = Type.Object({ id: Type.String({ maxLength: 64, description: 'Site id.' }) });

export const DeployTokenOut = Type.Object(
  {
    site: Type.String({ description: 'The site the token deploys to.' }),
    name: Type.String({ description: 'The name the token was given at creation.' }),
  },
  { additionalProperties: false },
);

export const ReleaseId = Type.String({
  pattern: '^[a-z0-9]{12}$',
  description: 'Release id: 12 lower-case letters and digits, time-sortable.',
});

export const ReleaseParams = Type.Object({
  id: Type.String({ maxLength: 64, description: 'Site id.' }),
  release: ReleaseId,
});

export const PreviewLinkBody = Type.Object(
  {
    expires_in: Type.Integer({
      minimum: PREVIEW_LINK_MIN_SECONDS,
      maximum: PREVIEW_LINK_MAX_SECONDS,
      description: `Seconds until the link stops working: ${PREVIEW_LINK_MIN_SECONDS} (5 minutes) to ${PREVIEW_LINK_MAX_SECONDS} (30 days).`,
    }),
  },
  { additionalProperties: false },
);
export type PreviewLinkBody = Static<typeof PreviewLinkBody>;

export const PreviewLinkOut = Type.Object({
  release: ReleaseId,
  url: Type.String({
    description:
      "The release's preview URL with a signed token: it opens the preview without the password until it expires, on that release's host only. A new preview password voids it.",
  }),
  expires_at: Type.String({ format: 'date-time' }),
});
export type PreviewLinkOut = Static<typeof PreviewLinkOut>;

export const ReleaseBody = Type.Object({ release: ReleaseId }, { additionalProperties: false });
export type ReleaseBody = Static<typeof ReleaseBody>;

export const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) =>
  Type.Union([schema, Type.Null()]);

export const GitCommitOut = Type.Object({
  repository: Type.String({ description: '`owner/name`.' }),
  branch: Type.String(),
  commit: Type.String({ description: 'Full commit id.' }),
});

export const ReleaseOut = Type.Object({
  id: ReleaseId,
  site: Type.String(),
  created_at: Type.String({ format: 'date-time' }),
  source: Type.Union([Type.Literal('archive'), Type.Literal('markdown'), Type.Literal('static')], {
    description:
      'archive: uploaded as built; markdown: built by Blume from Markdown; static: a repository folder served as is.',
  }),
  file_count: Type.Integer(),
  size: Type.Integer({ description: 'Bytes of all files, uncompressed.' }),
  new_blobs: Type.Integer({
    description: 'Distinct files this deploy added to the store; the rest were already there.',
  }),
  preview_url: Type.String({ description: 'Basic-auth protected host serving exactly this release.' }),
  promotable: Type.Boolean({ description: 'False for preview-only releases (builds of a non-connected branch).' }),
  build_id: Nullable(Type.String()),
  git: Nullable(GitCommitOut),
  origin: Type.Union([Type.Literal('upload'), Type.Literal('build'), Type.Literal('git')], {
    description:
      'How it was made: upload (files uploaded as built), build (Markdown uploaded and built), git (a push built it).',
  }),
  created_by: Nullable(
    Type.String({
      description:
        'Who made it, in words: `deploy token "<name>"`, `console user "<name>"`, `push by "<pusher>"`; null on releases made before Blume kept it.',
    }),
  ),
  build_duration_ms: Nullable(
    Type.Integer({ description: "Milliseconds from the build's start to the release; null for uploads." }),
  ),
});
export type ReleaseOut = Static<typeof ReleaseOut>;

export const AliasesOut = Type.Object({
  live: Nullable(ReleaseId),
  stage: Nullable(ReleaseId),
  auth: Type.String({ description: 'Basic-auth password of stage and preview hosts; the user name is `preview`.' }),
});
export type AliasesOut = Static<typeof AliasesOut>;

const UrlsOut = Type.Object({
  production: Type.String(),
  stage: Type.String(),
});

export const ReleasesOut = Type.Object({
  releases: Type.Array(ReleaseOut, { description: 'Newest first.' }),
  aliases: AliasesOut,
  urls: UrlsOut,
  rollback_to: Type.Union([ReleaseId, Type.Null()], {
    description: 'The release POST /rollback would make live now; null when there is none.',
  }),
});
export type ReleasesOut = Static<typeof ReleasesOut>;

const PropagationOut = Type.Object(
  {
    confirmed: Type.Array(Type.String(), {
      description: 'Ids of the app nodes that confirmed they serve the new pointers.',
    }),
    unconfirmed: Type.Array(Type.String(), {
      description:
        'Nodes on the bus that did not confirm in time; the answer waited out the staleness bound, so they no longer serve the old pointers either.',
    }),
  },
  { description: 'Which app nodes confirmed the change before this answer (docs/scaling.md).' },
);

export const AliasChangeOut = Type.Object({
  release: Nullable(ReleaseOut),
  aliases: AliasesOut,
  urls: UrlsOut,
  propagation: PropagationOut,
});

export const IfMatchHeaders = Type.Object({
  'if-match': Type.Optional(
    Type.String({
      description:
        'The live release the change is meant to replace, as the `ETag` of `GET /api/deploy/{id}/releases` gives it (`"<release id>"`, or `"none"` when nothing is live). When another change landed first, the answer is 412 `live_release_changed` and nothing changes.',
      pattern: '^"[A-Za-z0-9_-]+"$',
    }),
  ),
});
export type AliasChangeOut = Static<typeof AliasChangeOut>;

export const ArchiveUpload = Type.Object(
  {
    // `format: binary` is how OpenAPI 3.0 tools know a file part, `contentMediaType` how 3.1 ones do;
    // openapi-typescript turns either into `string` unless told `Blob` (docs/api-clients.md).
    archive: Type.String({
      format: 'binary',
      contentMediaType: 'application/gzip',
      description: 'tar.gz of the built site; files at the root or under one top folder.',
    }),
  },
  { required: ['archive'] },
);

const EnvContext = Type.Union([Type.Literal('all'), Type.Literal('production'), Type.Literal('preview')], {
  description:
    'Which builds get the value: `all`, or `production` (builds of promotable releases) / `preview` (builds of other branches), which override `all`.',
});

export const EnvVarParams = Type.Object({
  id: Type.String({ maxLength: 64, description: 'Site id.' }),
  name: Type.String({ maxLength: 128, description: 'Variable name.' }),
});

export const EnvVarQuery = Type.Object({ context: Type.Optional(EnvContext) });

export const EnvVarBody = Type.Object(
  {
    value: Type.String({ maxLength: 16384 }),
    context: Type.Optional(EnvContext),
    secret: Type.Optional(
      Type.Boolean({
        description: 'A secret value is write-only: no answer or page shows it again; build logs mask it.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type EnvVarBody = Static<typeof EnvVarBody>;

export const EnvVarOut = Type.Object({
  name: Type.String(),
  context: EnvContext,
  value: Nullable(Type.String({ description: 'Null for a secret: it is never shown again.' })),
  secret: Type.Boolean(),
  updated_at: Type.String({ format: 'date-time' }),
});
export type EnvVarOut = Static<typeof EnvVarOut>;

export const DomainParams = Type.Object({
  id: Type.String({ maxLength: 64, description: 'Site id.' }),
  domain: Type.String({ maxLength: 253 }),
});

export const DomainBody = Type.Object(
  { domain: Type.String({ maxLength: 254, description: 'A host name such as `docs.example.com`.' }) },
  { additionalProperties: false },
);

export const DomainOut = Type.Object({
  domain: Type.String(),
  site: Type.String(),
  url: Type.String({ description: 'The site at this domain, over HTTPS (the proxy in front terminates TLS).' }),
  created_at: Type.String({ format: 'date-time' }),
});
export type DomainOut = Static<typeof DomainOut>;

export const DomainCheckQuery = Type.Object({
  domain: Type.String({ maxLength: 254, description: 'The host name the proxy is about to get a certificate for.' }),
});

export const DomainCheckOut = Type.Object({ domain: Type.String(), site: Type.String() });

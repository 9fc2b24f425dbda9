import { Type, type Static } from 'typebox';
import { GitCommitOut, Nullable, ReleaseId, ReleaseOut } from '../schemas.js';

export const BuildParams = Type.Object({
  id: Type.String({ maxLength: 64, description: 'Site id.' }),
  build_id: Type.String({ maxLength: 64, description: 'Build id.' }),
});

export const BuildLogLineOut = Type.Object({
  at: Type.String({ format: 'date-time' }),
  stream: Type.Union([Type.Literal('stdout'), Type.Literal('stderr'), Type.Literal('sandbox'), Type.Literal('blume')], {
    description:
      'stdout/stderr: the builder; sandbox: its limits and isolation; blume: fetching, storing, the outcome.',
  }),
  line: Type.String(),
});
export type BuildLogLineOut = Static<typeof BuildLogLineOut>;

export const BuildOut = Type.Object({
  id: Type.String(),
  site: Type.String(),
  state: Type.Union([
    Type.Literal('queued'),
    Type.Literal('running'),
    Type.Literal('succeeded'),
    Type.Literal('failed'),
    Type.Literal('canceled'),
  ]),
  trigger: Type.Union([Type.Literal('upload'), Type.Literal('push')]),
  kind: Type.Union([Type.Literal('markdown'), Type.Literal('static')]),
  git: Nullable(GitCommitOut),
  promotable: Type.Boolean({
    description: 'Whether the release it makes may be promoted (false for pushes to another branch).',
  }),
  created_at: Type.String({ format: 'date-time' }),
  started_at: Nullable(Type.String({ format: 'date-time' })),
  finished_at: Nullable(Type.String({ format: 'date-time' })),
  release: Nullable(ReleaseId),
  error: Nullable(Type.String()),
  cancel_requested_at: Nullable(
    Type.String({
      format: 'date-time',
      description: 'When a cancel was asked for; a running build with it set is being stopped.',
    }),
  ),
  logs: Type.Array(BuildLogLineOut, {
    description: 'Log lines in order; readable while the build runs. Lists carry only the last lines of each build.',
  }),
});
export type BuildOut = Static<typeof BuildOut>;

export const BuildsOut = Type.Object({ builds: Type.Array(BuildOut, { description: 'Newest first.' }) });

export const SourceUpload = Type.Object(
  {
    archive: Type.String({
      format: 'binary',
      description:
        'tar or tar.gz of Markdown sources (recognised by content); files at the root or under one top folder.',
    }),
  },
  { required: ['archive'] },
);

/** The answer of a docs build that succeeded: its release, the build, and what the build warned about. */
export const BuiltReleaseOut = Type.Object({
  ...ReleaseOut.properties,
  build_id: Type.String(),
  warnings: Type.Array(Type.String(), {
    description:
      'What the build warned about, one line each (`file:line: message`): removed HTML, a missing anchor, no site URL. The build log has them too.',
  }),
});
export type BuiltReleaseOut = Static<typeof BuiltReleaseOut>;

// Everything the deploy API sends about builds.
import type { BuildLogLineOut, BuildOut } from './schemas.js';
import type { BuildLogRow, BuildRow } from './tables.js';

export function presentLogLine(row: BuildLogRow): BuildLogLineOut {
  return { at: row.at.toISOString(), stream: row.stream, line: row.line };
}

export function presentBuild(row: BuildRow, logs: BuildLogRow[]): BuildOut {
  return {
    id: row.id,
    site: row.siteId,
    state: row.state,
    trigger: row.trigger,
    kind: row.kind,
    git: row.git ?? null,
    promotable: row.promotable,
    created_at: row.createdAt.toISOString(),
    started_at: row.startedAt?.toISOString() ?? null,
    finished_at: row.finishedAt?.toISOString() ?? null,
    release: row.releaseId,
    error: row.error,
    cancel_requested_at: row.cancelRequestedAt?.toISOString() ?? null,
    logs: logs.map(presentLogLine),
  };
}

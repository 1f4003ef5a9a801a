// The status service: what the app's Overview and status line show — schema revision, row
// counts per record, where the data lives.
import type { Sqlite } from '../../db/client';
import { currentRevision } from '../../migrations/runner';
import { COUNTED_TABLES, type AppStatus, type CountedTable } from './ipc/contract';
import type { DataPaths } from './paths';
import { TERN_VERSION } from './version';

export interface StatusService {
  get(): AppStatus;
}

export function createStatusService(deps: {
  sqlite: Sqlite;
  paths: DataPaths;
  mode: AppStatus['mode'];
  startedAt: Date;
  head: string;
}): StatusService {
  // One statement for all counts: table names come from a fixed list, never from input.
  const countAll = deps.sqlite.prepare(
    `SELECT ${COUNTED_TABLES.map((t) => `(SELECT count(*) FROM "${t}") AS "${t}"`).join(', ')}`,
  );
  return {
    get() {
      const counts = countAll.get() as Record<CountedTable, number>;
      return {
        revision: currentRevision(deps.sqlite),
        head: deps.head,
        counts,
        dataDir: deps.paths.dir,
        databasePath: deps.paths.database,
        mode: deps.mode,
        version: TERN_VERSION,
        startedAt: deps.startedAt.toISOString(),
      };
    },
  };
}

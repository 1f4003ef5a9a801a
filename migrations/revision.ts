// What a schema revision is. Each revision file (<id>_<name>.ts) exports one; runner.ts lists
// them in REVISIONS. Revision files import this type from here, never from the runner.
import type { Sqlite } from '../db/client';

export interface Revision {
  id: string;
  parent: string | null;
  description: string;
  upgrade(sqlite: Sqlite): void;
  downgrade(sqlite: Sqlite): void;
}

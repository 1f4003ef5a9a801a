// Opens Tern's one SQLite file with the pragmas the app relies on (WAL, foreign keys, a busy
// timeout) and wraps it in drizzle. It knows nothing of migrations or federation.
import Database from 'better-sqlite3';
import { drizzle, type BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
import * as schema from './schema';

export type Schema = typeof schema;
export type Db = BetterSQLite3Database<Schema>;
/** A database handle or a transaction: helpers take either, so they compose inside a transaction. */
export type DbOrTx = Db | Parameters<Parameters<Db['transaction']>[0]>[0];
export type Sqlite = Database.Database;

export interface OpenOptions {
  readonly?: boolean;
  /** Log each statement (debugging only). */
  verbose?: boolean;
}

/** Opens (creating when missing) the SQLite file at `path`, or `:memory:`. */
export function openSqlite(path: string, options: OpenOptions = {}): Sqlite {
  const sqlite = new Database(path, {
    readonly: options.readonly ?? false,
    fileMustExist: options.readonly ?? false,
    ...(options.verbose ? { verbose: (m: unknown) => console.debug(m) } : {}),
  });
  if (!options.readonly && path !== ':memory:') sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  // WAL + NORMAL is durable across application crashes; only an OS crash can lose the last
  // transactions, never corrupt the file.
  sqlite.pragma('synchronous = NORMAL');
  return sqlite;
}

export function wrapDrizzle(sqlite: Sqlite): Db {
  return drizzle({ client: sqlite, schema });
}

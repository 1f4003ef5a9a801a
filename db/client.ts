// Opens Tern's one SQLite file with the pragmas the app relies on (WAL, foreign keys, a busy
// timeout) and wraps it in drizzle. It knows nothing of migrations or federation.
import Database from 'better-sqlite3';
import { getTableColumns, getTableName, is, SQL, type Column, type Table } from 'drizzle-orm';
import { BetterSQLiteTransaction, drizzle, type BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
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

export interface WrapOptions {
  /** Transactions start with BEGIN IMMEDIATE unless told otherwise. For a file that another
   * connection writes too (the inbox worker's): a deferred transaction that reads and then
   * writes fails at once (SQLITE_BUSY_SNAPSHOT, no busy wait) when the other connection
   * committed in between; an immediate one waits its turn (busy_timeout) before reading. */
  immediate?: boolean;
}

export function wrapDrizzle(sqlite: Sqlite, options: WrapOptions = {}): Db {
  const db = drizzle({ client: sqlite, schema });
  // drizzle prepares a query's SQL again on every call, and a better-sqlite3 statement's native
  // memory is not given back while its connection is open (measured: RSS +6 KB a prepare, after
  // GC; scrolling the stream grew RSS by 2.4 MB per 1,000 rows). Its session asks its client for
  // prepare and transaction only: that client reuses one statement per SQL text instead.
  const session = (db as unknown as { session: DrizzleSession }).session;
  session.client = statementCachingClient(sqlite);
  // Every drizzle transaction built a transaction object (whose constructor makes a relational
  // query builder for each table of the schema) and had better-sqlite3 wrap its function anew
  // (four wrappers, their properties defined): ≈ 17 µs a transaction, measured, where BEGIN and
  // COMMIT cost ≈ 3. The object holds no state of its own (dialect, session, schema, depth 0),
  // so the top level shares one; better-sqlite3's wrapper is made once per connection
  // (statementCachingClient) and still nests as a savepoint inside an open transaction.
  let topLevel: BetterSQLiteTransaction<Schema, never> | undefined;
  session.transaction = (run, config = {}) => {
    topLevel ??= new BetterSQLiteTransaction('sync', session.dialect as never, session as never, session.schema as never);
    return session.client.transaction(run)[config.behavior ?? 'deferred'](topLevel);
  };
  if (options.immediate) {
    const begin = db.transaction.bind(db);
    db.transaction = ((run, config) => begin(run, { behavior: 'immediate', ...config })) as Db['transaction'];
  }
  return db;
}

/** Statements kept per connection (LRU), for the SQL drizzle builds: a few hundred texts. */
const STATEMENT_CACHE_SIZE = 500;

/** The connection behind each statement-caching client (sqliteOf must find the connection
 * itself: callers key per-connection state by it and call its other methods). */
const connectionOf = new WeakMap<object, Sqlite>();

type Behavior = 'default' | 'deferred' | 'immediate' | 'exclusive';
type NativeTransaction = Record<Behavior, (tx: unknown) => unknown>;
interface DrizzleSession {
  client: { transaction(run: (tx: unknown) => unknown): NativeTransaction };
  dialect: unknown;
  schema: unknown;
  transaction(run: (tx: unknown) => unknown, config?: { behavior?: Behavior }): unknown;
}

function statementCachingClient(sqlite: Sqlite): Pick<Sqlite, 'prepare' | 'transaction'> {
  const cache = new Map<string, Database.Statement>();
  // One better-sqlite3 transaction function for the connection, given each call's function.
  const wrapped = sqlite.transaction((fn: (tx: unknown) => unknown, tx: unknown) => fn(tx));
  const client: Pick<Sqlite, 'prepare' | 'transaction'> = {
    prepare: ((source: string) => {
      const cached = cache.get(source);
      // A statement still stepping (an iterate() not finished) cannot run again: a fresh one.
      if (cached !== undefined && !cached.busy) {
        cache.delete(source);
        cache.set(source, cached);
        // drizzle switches a statement to arrays (raw) for some calls and not back.
        if (cached.reader) cached.raw(false);
        return cached;
      }
      const statement = sqlite.prepare(source);
      if (cached === undefined) {
        cache.set(source, statement);
        if (cache.size > STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value!);
      }
      return statement;
    }) as Sqlite['prepare'],
    transaction: ((fn: (tx: unknown) => unknown) => ({
      default: (tx: unknown) => wrapped.default(fn, tx),
      deferred: (tx: unknown) => wrapped.deferred(fn, tx),
      immediate: (tx: unknown) => wrapped.immediate(fn, tx),
      exclusive: (tx: unknown) => wrapped.exclusive(fn, tx),
    })) as unknown as Sqlite['transaction'],
  };
  connectionOf.set(client, sqlite);
  return client;
}

/**
 * The better-sqlite3 connection behind a drizzle handle or transaction (a transaction runs on
 * its database's one connection, so statements run on it take part in the transaction).
 */
export function sqliteOf(db: DbOrTx): Sqlite {
  const direct = (db as { $client?: Sqlite }).$client;
  if (direct !== undefined) return direct;
  const viaSession = (db as unknown as { session?: { client?: Sqlite } }).session?.client;
  if (viaSession !== undefined) return connectionOf.get(viaSession) ?? viaSession;
  throw new Error('no SQLite connection behind this database handle');
}

const statements = new WeakMap<Sqlite, Map<string, Database.Statement>>();

/**
 * A prepared statement for `source` on this handle's connection, prepared once per connection
 * and reused: for hot paths, where drizzle would build and prepare the SQL on every call.
 */
export function prepared<BindParameters extends unknown[] = unknown[], Result = unknown>(
  db: DbOrTx,
  source: string,
): Database.Statement<BindParameters, Result> {
  const sqlite = sqliteOf(db);
  let cache = statements.get(sqlite);
  if (cache === undefined) statements.set(sqlite, (cache = new Map()));
  let statement = cache.get(source);
  if (statement === undefined) cache.set(source, (statement = sqlite.prepare(source)));
  return statement as unknown as Database.Statement<BindParameters, Result>;
}

const columnNames = new WeakMap<Database.Statement, string[]>();

/**
 * All rows of `statement`, each an object by column name as its `all` gives them, but built here
 * from its array rows. better-sqlite3 makes each object row with one object literal for each
 * statement, and V8 watches a literal's allocation site: when its scavenges find most of a site's
 * objects alive (a page's rows, alive while the page is made), it pretenures the site — its next
 * objects are made in the old generation, where, once dead, they keep the young strings they
 * hold (a row's JSON text) alive through the following scavenges. The People page's scavenges
 * then took 11 ms and moved 7 MB to the old generation every 70 pages (1–2 ms and none from
 * here). An object built from `{}` has no such site.
 */
export function allRows<BindParameters extends unknown[]>(statement: Database.Statement<BindParameters, unknown>, ...params: BindParameters): Record<string, unknown>[] {
  let names = columnNames.get(statement as Database.Statement);
  if (names === undefined) columnNames.set(statement as Database.Statement, (names = statement.columns().map((c) => c.name)));
  statement.raw(true);
  try {
    return (statement.all(...params) as unknown[][]).map((values) => {
      const row: Record<string, unknown> = {};
      for (let i = 0; i < values.length; i++) row[names[i]!] = values[i];
      return row;
    });
  } finally {
    statement.raw(false);
  }
}

/**
 * Turns a raw row of `table` (as better-sqlite3 returns it, by column name) into the row drizzle
 * would return (property names, and each column's own decoding: dates, JSON, booleans).
 */
export function rowDecoder<T extends Table>(table: T): (raw: Record<string, unknown>) => T['$inferSelect'] {
  const columns = Object.entries(getTableColumns(table));
  return (raw) => {
    const row: Record<string, unknown> = {};
    for (const [key, column] of columns) {
      const value = raw[column.name];
      row[key] = value === null || value === undefined ? null : column.mapFromDriverValue(value);
    }
    return row as T['$inferSelect'];
  };
}

/** A value longer, once encoded, than preparedInsert's `maxChars` allows for its column. */
export class ValueTooLargeError extends Error {
  override name = 'ValueTooLargeError';
  constructor(
    readonly column: string,
    readonly chars: number,
    readonly maxChars: number,
  ) {
    super(`${column} is ${chars} characters long, more than the ${maxChars} stored`);
  }
}

/**
 * An INSERT … RETURNING * of the given columns of `table`, prepared once per connection, that
 * encodes values and decodes the row as drizzle's insert().values().returning().get() does
 * (each column's own mapping; a missing value takes the column's $defaultFn or plain default,
 * else NULL). For hot paths: drizzle builds and prepares the SQL on every call. `maxChars`
 * bounds the encoded text of some columns (ValueTooLargeError, nothing written): measured on
 * the text the row gets, with no second encoding.
 */
export function preparedInsert<T extends Table, K extends keyof T['$inferInsert'] & string>(
  table: T,
  keys: readonly K[],
  maxChars: Partial<Record<K, number>> = {},
): (db: DbOrTx, values: Pick<T['$inferInsert'], K>) => T['$inferSelect'] {
  const columns = getTableColumns(table) as Record<string, Column>;
  const picked = keys.map((key) => {
    const column = columns[key];
    if (column === undefined) throw new Error(`no column ${key} in ${getTableName(table)}`);
    return [key, column] as const;
  });
  const source =
    `INSERT INTO "${getTableName(table)}" (${picked.map(([, c]) => `"${c.name}"`).join(', ')})` +
    ` VALUES (${picked.map(() => '?').join(', ')}) RETURNING *`;
  const decode = rowDecoder(table);
  return (db, values) => {
    const params = picked.map(([key, column]) => {
      let value = (values as Record<string, unknown>)[key];
      if (value === undefined) value = column.defaultFn !== undefined ? column.defaultFn() : column.default;
      if (is(value, SQL)) throw new Error(`preparedInsert: ${column.name} needs an SQL default; pass a value`);
      const encoded: unknown = value === null || value === undefined ? null : column.mapToDriverValue(value);
      const most = maxChars[key];
      if (most !== undefined && typeof encoded === 'string' && encoded.length > most) throw new ValueTooLargeError(column.name, encoded.length, most);
      return encoded;
    });
    return decode(prepared<unknown[], Record<string, unknown>>(db, source).get(...params)!);
  };
}

// Moving in from microblog.pub: its `data/` folder (microblogpub.db, profile.toml, key.pem,
// uploads/) becomes this Tern's data. Tern's schema is microblog.pub's, so a copy of its
// database is brought to Tern's head with Tern's own revision runner and every row is copied
// over as it is, with one conversion: microblog.pub wrote datetimes as naive UTC text, Tern
// stores them as UTC text with Z (any offset converted). The identity (base URL, user name, name, summary, approval by
// hand) and the RSA key come along, so the actor keeps its id and key id and followers keep
// following. Nothing of the source folder is changed. The new data is built beside the current
// one and swapped in with the core closed; the current files are moved to before-import-<time>/.
//
// Refused, touching nothing: a folder that is not microblog.pub's, a database at a revision
// Tern does not know, and a Tern that already holds posts or people (moving in replaces the
// database; two histories are never merged).
import { createPrivateKey, createPublicKey } from 'node:crypto';
import { constants as fsConstants, existsSync, statSync } from 'node:fs';
import { copyFile, lstat, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';
import Database from 'better-sqlite3';
import { openSqlite, type Sqlite } from '../../../db/client';
import { datetimeCheckSql, utcDatetimeSql } from '../../../db/columns';
import { currentRevision, upgrade } from '../../../migrations/runner';
import { NOT_SEARCH_TABLE } from '../../../migrations/c41f7a2e9d15_full_text_search';
import { BadInputError, ConflictError, UnavailableError } from '../errors';
import type { Reopen } from './restore';
import { COUNTED_TABLES } from '../../../db/counted-tables';
import { generateKeyPairFiles } from '../net/signatures';
import { KEY_FILES } from '../net/key-files';
import { baseUrlSchema, settingsSchema, USERNAME_RE, type Settings, type SettingsStore } from '../settings';
import type { DataPaths } from '../paths';
import { swapIntoDataFolder, undoSwap } from './swap';
import { onBackupThread } from './backup';
import type { ImportInspection, LeftBehind, TernEnums } from './import-types';
import { hashSecret } from '../indieauth/secrets';
import { UNCHECKED_ACTOR_DATE } from '../federation/actors';

/**
 * microblog.pub's revisions from f5717d82b3ff on (its last release's chain), each with the
 * revision of the spec's chain whose tables it holds. The spec names only f5717d82b3ff,
 * 9b404c47970a and 4ab54becec04; microblog.pub's revisions between them only add columns (and
 * a209f0333f5a refresh-token columns), which Tern's schema does not have and which are left
 * behind. A copy is stamped with the spec's revision, so Tern's runner upgrades it from there.
 */
export const MICROBLOGPUB_REVISIONS: Readonly<Record<string, 'f5717d82b3ff' | '9b404c47970a' | '4ab54becec04'>> = {
  f5717d82b3ff: 'f5717d82b3ff', // initial migration
  '50d26a370a65': 'f5717d82b3ff', // actor.is_blocked
  '1702e88016db': 'f5717d82b3ff', // notifications.is_accepted, is_rejected
  '9bc69ed947e2': 'f5717d82b3ff', // inbox/outbox.conversation
  '6286262bb466': 'f5717d82b3ff', // WAL mode
  '5d3e3f2b9b4e': 'f5717d82b3ff', // actor.is_deleted
  '604d125ea2fb': 'f5717d82b3ff', // inbox.has_local_mention
  b28c0551c236: 'f5717d82b3ff', // outbox.slug
  fadfd359ce78: 'f5717d82b3ff', // webmention.webmention_type
  '9b404c47970a': '9b404c47970a', // actor.are_announces_hidden_from_stream
  '4ab54becec04': '4ab54becec04', // oauth_client
  a209f0333f5a: '4ab54becec04', // indieauth_access_token.refresh_token, was_refreshed
};
const DB_FILE = 'microblogpub.db';
const PROFILE_FILE = 'profile.toml';
const KEY_FILE = 'key.pem';

/** What the move reads from the running core (each step picks its part). */
interface ImportCore {
  paths: DataPaths;
  settings: SettingsStore;
  sqlite: Sqlite;
  clock: () => Date;
}

export interface MicroblogPubIdentity {
  baseUrl: string;
  username: string;
  displayName: string;
  summary: string;
  manuallyApprovesFollowers: boolean;
  /** @user@host */
  handle: string;
}

export interface MicroblogPubPreview {
  folder: string;
  revision: string;
  identity: MicroblogPubIdentity;
  /** Rows per table in the microblog.pub database. */
  counts: Record<string, number>;
  uploads: number;
  /** Rows not brought over: their kind (a notification type…) is one Tern does not have. */
  leftBehind: LeftBehind[];
  /** This Tern's base URL when it differs from the one moving in (the identity changes). */
  replacesBaseUrl: string | null;
}

export interface MicroblogPubImport {
  preview: MicroblogPubPreview;
  /** False for a preview (confirm: false). */
  imported: boolean;
  /** Where this Tern's previous files went (null when nothing moved). */
  movedAside: string | null;
}

// ---- profile.toml ------------------------------------------------------------------------

type TomlValue = string | boolean | number;

/**
 * The top-level keys of a TOML file with string, boolean and number values — what
 * microblog.pub's profile.toml holds before its first table. Tables, arrays and anything else
 * are skipped, not guessed at.
 */
export function readTomlTopLevel(text: string): Record<string, TomlValue> {
  const out: Record<string, TomlValue> = {};
  const src = text.replace(/\r\n/g, '\n');
  let i = 0;
  const skipLine = () => {
    const end = src.indexOf('\n', i);
    i = end === -1 ? src.length : end + 1;
  };
  while (i < src.length) {
    const rest = src.slice(i);
    const blank = /^[ \t]*(#[^\n]*)?(\n|$)/.exec(rest);
    if (blank) {
      i += blank[0].length || 1;
      continue;
    }
    if (/^[ \t]*\[/.test(rest)) break; // the first table: top-level keys are over
    const key = /^[ \t]*([A-Za-z0-9_-]+|"[^"\n]*")[ \t]*=[ \t]*/.exec(rest);
    if (!key) {
      skipLine();
      continue;
    }
    const name = key[1]!.replace(/^"|"$/g, '');
    i += key[0].length;
    const parsed = readTomlValue(src, i);
    if (parsed) {
      out[name] = parsed.value;
      i = parsed.end;
    }
    skipLine();
  }
  return out;
}

function readTomlValue(src: string, at: number): { value: TomlValue; end: number } | null {
  const rest = src.slice(at);
  if (rest.startsWith('"""')) {
    const close = rest.indexOf('"""', 3);
    if (close === -1) return null;
    return { value: unescapeBasic(rest.slice(3, close).replace(/^\n/, '').replace(/\\\n\s*/g, '')), end: at + close + 3 };
  }
  if (rest.startsWith("'''")) {
    const close = rest.indexOf("'''", 3);
    if (close === -1) return null;
    return { value: rest.slice(3, close).replace(/^\n/, ''), end: at + close + 3 };
  }
  const basic = /^"((?:[^"\\\n]|\\.)*)"/.exec(rest);
  if (basic) return { value: unescapeBasic(basic[1]!), end: at + basic[0].length };
  const literal = /^'([^'\n]*)'/.exec(rest);
  if (literal) return { value: literal[1]!, end: at + literal[0].length };
  const bool = /^(true|false)\b/.exec(rest);
  if (bool) return { value: bool[1] === 'true', end: at + bool[0].length };
  const num = /^[+-]?\d[\d_]*(\.\d+)?\b/.exec(rest);
  if (num) return { value: Number(num[0].replace(/_/g, '')), end: at + num[0].length };
  return null;
}

function unescapeBasic(s: string): string {
  return s.replace(/\\(u[0-9A-Fa-f]{4}|U[0-9A-Fa-f]{8}|.)/g, (_, e: string) => {
    if (e[0] === 'u' || e[0] === 'U') return String.fromCodePoint(parseInt(e.slice(1), 16));
    return ({ n: '\n', t: '\t', r: '\r', b: '\b', f: '\f', '"': '"', '\\': '\\' } as Record<string, string>)[e] ?? e;
  });
}

/** The identity profile.toml gives (microblog.pub's actor id is http(s)://domain). */
export function identityFromProfile(text: string): MicroblogPubIdentity {
  const profile = readTomlTopLevel(text);
  const str = (key: string) => (typeof profile[key] === 'string' ? (profile[key] as string) : '');
  const domain = str('domain').trim();
  if (domain === '') throw new BadInputError('profile.toml names no domain, so this is not a microblog.pub data folder Tern can read.');
  const scheme = profile.https === false ? 'http' : 'https';
  const baseUrl = baseUrlSchema.safeParse(`${scheme}://${domain}`);
  if (!baseUrl.success) throw new BadInputError(`profile.toml's domain “${domain}” does not make a URL Tern can use.`);
  const username = str('username').trim();
  if (!USERNAME_RE.test(username)) {
    throw new BadInputError(`profile.toml's username “${username}” is not one Tern can use (1–30 letters, digits or _).`);
  }
  const host = new URL(baseUrl.data).host;
  return {
    baseUrl: baseUrl.data,
    username,
    displayName: str('name').trim().slice(0, 100),
    summary: str('summary').slice(0, 5000),
    manuallyApprovesFollowers: profile.manually_approves_followers === true,
    handle: `@${username}@${host}`,
  };
}

// ---- reading the folder ------------------------------------------------------------------

function requireFolder(folder: string): void {
  if (!isAbsolute(folder)) throw new BadInputError('Give the full path of the microblog.pub data folder (for example /home/me/microblog.pub/data).');
  if (!existsSync(folder) || !statSync(folder).isDirectory()) throw new BadInputError(`There is no folder at ${folder}.`);
  const missing = [DB_FILE, PROFILE_FILE, KEY_FILE].filter((name) => !existsSync(join(folder, name)));
  if (missing.length > 0) {
    throw new BadInputError(
      `${folder} is not a microblog.pub data folder: it has no ${missing.join(', ')}. ` +
        'Choose the data/ folder of your microblog.pub (the one holding microblogpub.db, profile.toml and key.pem).',
    );
  }
}

/** microblog.pub's key.pem (PKCS#1 or PKCS#8) as the PEM pair Tern keeps. */
export function convertKey(pem: string): { privatePem: string; publicPem: string } {
  let key;
  try {
    key = createPrivateKey(pem);
  } catch {
    throw new BadInputError('key.pem is not a private key Tern can read.');
  }
  if (key.asymmetricKeyType !== 'rsa') throw new BadInputError(`key.pem holds an ${key.asymmetricKeyType} key; microblog.pub's is RSA.`);
  return {
    privatePem: key.export({ type: 'pkcs8', format: 'pem' }).toString(),
    publicPem: createPublicKey(key).export({ type: 'spki', format: 'pem' }).toString(),
  };
}

/** Copies microblog.pub's database file (and its WAL, when there is one) to `dest` and checks its
 * revision. The copy is what is opened: SQLite would otherwise leave -wal/-shm files in the
 * source folder, and nothing there is to change. */
async function copyDatabase(folder: string, dest: string): Promise<string> {
  const source = join(folder, DB_FILE);
  await copyFile(source, dest);
  if (existsSync(`${source}-wal`)) await copyFile(`${source}-wal`, `${dest}-wal`);
  try {
    const probe = new Database(dest);
    try {
      probe.pragma('journal_mode = DELETE'); // folds the WAL in; throws when the file is no database
    } finally {
      probe.close();
    }
  } catch {
    throw new BadInputError(`${source} is not a SQLite database, or it is damaged.`);
  }
  const copy = new Database(dest);
  try {
    let revision: string | null;
    try {
      revision = currentRevision(copy);
    } catch {
      revision = 'several revisions';
    }
    if (revision === null) throw new BadInputError(`${DB_FILE} has no schema revision: it is not a microblog.pub database.`);
    const spec = Object.hasOwn(MICROBLOGPUB_REVISIONS, revision) ? MICROBLOGPUB_REVISIONS[revision] : undefined;
    if (spec === undefined) {
      throw new BadInputError(
        `${DB_FILE} is at revision ${revision}, which Tern does not know: Tern reads microblog.pub databases from ` +
          'f5717d82b3ff to a209f0333f5a (microblog.pub 2.x); a later version or a fork changed more than Tern can carry over. Nothing was changed.',
      );
    }
    // Stamped with the spec's revision it corresponds to: Tern's runner goes on from there.
    copy.prepare('UPDATE alembic_version SET version_num = ?').run(spec);
    return revision;
  } finally {
    copy.close();
  }
}

/** The spec's tables: not Tern's search index, which the triggers refill as the rows come in. */
function tableNames(sqlite: Sqlite, schema = 'main'): string[] {
  return sqlite
    .prepare(`SELECT name FROM "${schema}".sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name != 'alembic_version' AND ${NOT_SEARCH_TABLE} ORDER BY name`)
    .pluck()
    .all() as string[];
}

function countRows(sqlite: Sqlite, tables: readonly string[]): Record<string, number> {
  return Object.fromEntries(tables.map((t) => [t, sqlite.prepare(`SELECT count(*) FROM "${t}"`).pluck().get() as number]));
}

async function countFiles(dir: string): Promise<number> {
  if (!(await isRealDirectory(dir))) return 0;
  let n = 0;
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) n += await countFiles(join(dir, entry.name));
    else if (entry.isFile()) n++;
  }
  return n;
}

/** A folder itself, not a link to one. */
async function isRealDirectory(path: string): Promise<boolean> {
  return (await lstat(path).catch(() => null))?.isDirectory() ?? false;
}

/**
 * microblog.pub's uploads/ copied into `dest`: regular files and folders only. A link (to
 * ~/.ssh/id_rsa, say) is left behind, never copied as a link: the listener serves uploads by
 * name, and a link would serve whatever it points at.
 */
async function copyUploads(source: string, dest: string): Promise<void> {
  if (!(await isRealDirectory(source))) return;
  await mkdir(dest, { recursive: true, mode: 0o700 });
  for (const entry of await readdir(source, { withFileTypes: true })) {
    const from = join(source, entry.name);
    const to = join(dest, entry.name);
    if (entry.isDirectory()) await copyUploads(from, to);
    else if (entry.isFile()) await copyFile(from, to, fsConstants.COPYFILE_EXCL);
  }
}

/** The rows this Tern already holds, per table with any. */
function ternRows(core: Pick<ImportCore, 'sqlite'>): Record<string, number> {
  const counts = countRows(core.sqlite, COUNTED_TABLES);
  return Object.fromEntries(Object.entries(counts).filter(([, n]) => n > 0));
}

// ---- copying the rows --------------------------------------------------------------------

/** Tern's datetime columns of a table, read from its CHECK constraints (ck_<table>_<column>). */
function datetimeColumns(sqlite: Sqlite, table: string): Set<string> {
  const sql = (sqlite.prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?").pluck().get(table) as string | undefined) ?? '';
  return new Set(columnsOf(sqlite, table).filter((c) => sql.includes(`CONSTRAINT ck_${table}_${c} CHECK (${datetimeCheckSql(c)})`)));
}

/** Tern's enumerations of a table (ck_<table>_<column> CHECK (column IN ('A', 'B'…))). */
function enumColumns(sqlite: Sqlite, table: string): Map<string, string[]> {
  const sql = (sqlite.prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?").pluck().get(table) as string | undefined) ?? '';
  return new Map([...sql.matchAll(/CHECK \((\w+) IN \(((?:'[A-Z_]+'(?:, )?)+)\)\)/g)].map((m) => [m[1]!, [...m[2]!.matchAll(/'([A-Z_]+)'/g)].map((v) => v[1]!)]));
}

const knownValueSql = (column: string, values: readonly string[], alias: string) =>
  `(${alias}.${q(column)} IS NULL OR ${alias}.${q(column)} IN (${values.map((v) => `'${v}'`).join(', ')}))`;


export function ternEnums(tern: Sqlite, tables: readonly string[]): TernEnums {
  return Object.fromEntries(tables.map((table) => [table, [...enumColumns(tern, table)]]));
}

/** What the rows of `source` hold that Tern's enumerations do not know. */
function unknownValues(enums: TernEnums, source: Sqlite, sourceSchema: string, tables: readonly string[]): LeftBehind[] {
  const out: LeftBehind[] = [];
  for (const table of tables) {
    for (const [column, values] of enums[table] ?? []) {
      const rows = source
        .prepare(`SELECT src.${q(column)} AS value, count(*) AS n FROM ${sourceSchema}.${q(table)} AS src WHERE NOT ${knownValueSql(column, values, 'src')} GROUP BY src.${q(column)} ORDER BY 1`)
        .all() as { value: unknown; n: number }[];
      for (const row of rows) out.push({ table, column, value: String(row.value), rows: row.n });
    }
  }
  return out;
}

function columnsOf(sqlite: Sqlite, table: string, schema = 'main'): string[] {
  return (sqlite.prepare(`PRAGMA "${schema}".table_info("${table}")`).all() as { name: string }[]).map((c) => c.name);
}

const q = (name: string) => `"${name.replace(/"/g, '""')}"`;

/**
 * Secrets microblog.pub kept in plain text and Tern keeps only as SHA-256 hashes (indieauth/
 * secrets.ts): hashed on the way in, so the apps signed in keep working and the new database
 * holds no usable credential.
 */
const SECRET_COLUMNS: Readonly<Record<string, readonly string[]>> = {
  indieauth_access_token: ['access_token'],
  indieauth_authorization_request: ['code'],
  oauth_client: ['client_secret'],
};

/** Values set rather than copied. An actor's updated_at is when Tern last checked that actor's
 * document: microblog.pub's rows were never checked by Tern, and microblog.pub stored a fetched
 * document under the id the document gave, from whichever server served it (it follows
 * redirects anywhere and checks neither), so one row may hold a document another server wrote
 * for that actor. Dated at the epoch, such a document is fetched again before it is used, and
 * its keys are never believed without a fetch (federation/stored-keys.ts). */
const SET_COLUMNS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  actor: { updated_at: `'${UNCHECKED_ACTOR_DATE.toISOString()}'` },
};

/** Every datetime as Tern stores it, UTC text with milliseconds and Z (db/columns.ts): naive
 * UTC text (2022-07-01 10:00:00.123456) gets its Z, and text with another offset
 * (2022-07-01T12:00:00+02:00) is brought to UTC — kept as it was, it sorted by its local time
 * and paging skipped it. Converted here rather than by the triggers that would rewrite each
 * row after its insert. */
function datetimeSql(column: string): string {
  return utcDatetimeSql(`src.${q(column)}`);
}

/** Copies every row of `sourcePath` (already at Tern's head) into `target`, ids kept — but rows
 * with an enumeration value Tern does not have, which are reported instead. */
function copyRows(target: Sqlite, sourcePath: string): LeftBehind[] {
  target.prepare('ATTACH DATABASE ? AS src').run(sourcePath);
  target.function('tern_hash_secret', { deterministic: true }, (value: unknown) => (typeof value === 'string' ? hashSecret(value) : value));
  try {
    const leftBehind = unknownValues(ternEnums(target, tableNames(target)), target, 'src', tableNames(target));
    target.pragma('foreign_keys = OFF');
    const copyAll = target.transaction(() => {
      for (const table of tableNames(target)) {
        const from = new Set(columnsOf(target, table, 'src'));
        const columns = columnsOf(target, table).filter((c) => from.has(c));
        const dates = datetimeColumns(target, table);
        const secrets = new Set(SECRET_COLUMNS[table] ?? []);
        const set = SET_COLUMNS[table] ?? {};
        const select = columns
          .map((c) => set[c] ?? (dates.has(c) ? datetimeSql(c) : secrets.has(c) ? `tern_hash_secret(src.${q(c)})` : `src.${q(c)}`))
          .join(', ');
        const known = [...enumColumns(target, table)].map(([column, values]) => knownValueSql(column, values, 'src'));
        const where = known.length > 0 ? ` WHERE ${known.join(' AND ')}` : '';
        try {
          target.exec(`INSERT INTO main.${q(table)} (${columns.map(q).join(', ')}) SELECT ${select} FROM src.${q(table)} AS src${where} ORDER BY src.rowid`);
        } catch (error) {
          throw new BadInputError(`The rows of ${table} could not be brought over (${(error as Error).message}); nothing was changed.`);
        }
      }
      const broken = target.pragma('foreign_key_check') as { table: string; parent: string }[];
      if (broken.length > 0) {
        throw new BadInputError(`microblog.pub's ${broken[0]!.table} rows point to ${broken[0]!.parent} rows that do not exist; nothing was changed.`);
      }
    });
    copyAll();
    return leftBehind;
  } finally {
    target.pragma('foreign_keys = ON');
    target.exec('DETACH DATABASE src');
  }
}

// ---- the move ----------------------------------------------------------------------------

/** What a copy of microblog.pub's database holds: its revision, rows per table, and the rows
 * Tern would leave behind. Run on the backup thread (a count and a scan per table: 70–80 ms in
 * one piece for 100,000 rows on the main thread). */
export async function inspectMicroblogPub(folder: string, copy: string, enums: TernEnums): Promise<ImportInspection> {
  const revision = await copyDatabase(folder, copy);
  const sqlite = new Database(copy, { readonly: true });
  try {
    const tables = tableNames(sqlite);
    if (!['outbox', 'inbox', 'actor'].every((t) => tables.includes(t))) {
      throw new BadInputError(`${DB_FILE} does not hold microblog.pub's tables (outbox, inbox, actor).`);
    }
    return { revision, counts: countRows(sqlite, tables), leftBehind: unknownValues(enums, sqlite, 'main', tables) };
  } finally {
    sqlite.close();
  }
}

/** Reads the folder and says what moving in would bring, changing nothing. */
export async function previewMicroblogPub(core: Pick<ImportCore, 'paths' | 'settings' | 'sqlite'>, folder: string): Promise<MicroblogPubPreview> {
  requireFolder(folder);
  const identity = identityFromProfile(await readFile(join(folder, PROFILE_FILE), 'utf8'));
  convertKey(await readFile(join(folder, KEY_FILE), 'utf8'));
  const work = await mkdtemp(join(core.paths.dir, '.microblogpub-'));
  try {
    const enums = ternEnums(core.sqlite, tableNames(core.sqlite));
    const { revision, counts, leftBehind } = await onBackupThread({ kind: 'inspectImport', folder, copy: join(work, 'check.db'), enums });
    const current = core.settings.get().baseUrl;
    return {
      folder,
      revision,
      identity,
      counts,
      uploads: await countFiles(join(folder, 'uploads')),
      leftBehind,
      replacesBaseUrl: current !== null && current !== identity.baseUrl ? current : null,
    };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/**
 * Builds the new data folder's files in a staging folder inside the data folder: the database
 * (Tern's schema at head, microblog.pub's rows), keys (microblog.pub's RSA key, a new Ed25519
 * key: microblog.pub had none), settings (this Tern's, with microblog.pub's identity) and uploads.
 */
export async function stageMicroblogPub(folder: string, dataDir: string, settings: Settings, now: Date): Promise<string> {
  const staging = await mkdtemp(join(dataDir, '.import-'));
  try {
    const identity = identityFromProfile(await readFile(join(folder, PROFILE_FILE), 'utf8'));
    const key = convertKey(await readFile(join(folder, KEY_FILE), 'utf8'));
    const sourceCopy = join(staging, 'microblogpub-upgraded.db');
    await copyDatabase(folder, sourceCopy);
    const source = openSqlite(sourceCopy);
    try {
      upgrade(source);
      source.pragma('journal_mode = DELETE');
    } catch (error) {
      throw new BadInputError(`microblog.pub's database could not be brought to Tern's schema, so nothing was changed: ${(error as Error).message}`);
    } finally {
      source.close();
    }
    const target = openSqlite(join(staging, 'tern.db'));
    try {
      upgrade(target);
      copyRows(target, sourceCopy);
    } finally {
      target.close();
    }
    await rm(sourceCopy, { force: true });

    const keys = join(staging, 'keys');
    await generateKeyPairFiles(keys);
    await writeFile(join(keys, KEY_FILES.rsaPrivate), key.privatePem, { mode: 0o600 });
    await writeFile(join(keys, KEY_FILES.rsaPublic), key.publicPem, { mode: 0o600 });

    const next = settingsSchema.parse({
      ...settings,
      baseUrl: identity.baseUrl,
      username: identity.username,
      displayName: identity.displayName,
      summary: identity.summary,
      manuallyApprovesFollowers: identity.manuallyApprovesFollowers,
      actorPublishedAt: settings.baseUrl === identity.baseUrl ? settings.actorPublishedAt : null,
      profileUpdatedAt: now.toISOString(),
    });
    await writeFile(join(staging, 'settings.json'), `${JSON.stringify(next, null, 2)}\n`, { mode: 0o600 });
    await copyUploads(join(folder, 'uploads'), join(staging, 'uploads'));
    return staging;
  } catch (error) {
    await rm(staging, { recursive: true, force: true });
    throw error;
  }
}

/**
 * Without `confirm`, a preview. With it: refuses a Tern that holds posts or people, then closes
 * the core, builds the new data, swaps it in (the old files moved aside) and reopens the core.
 */
export async function importMicroblogPub(
  core: Pick<ImportCore, 'paths' | 'settings' | 'sqlite' | 'clock'>,
  reopen: Reopen | undefined,
  folder: string,
  confirm: boolean,
): Promise<MicroblogPubImport> {
  const preview = await previewMicroblogPub(core, folder);
  const existing = ternRows(core);
  if (Object.keys(existing).length > 0) {
    const what = Object.entries(existing)
      .map(([table, n]) => `${n} ${table}`)
      .join(', ');
    throw new ConflictError(
      `This Tern already holds data (${what}). Moving in from microblog.pub replaces Tern's database, and Tern does not ` +
        'merge two histories: start Tern on an empty data folder (--data-dir) and move in there.',
    );
  }
  if (!confirm) return { preview, imported: false, movedAside: null };
  if (reopen === undefined) {
    throw new UnavailableError('This Tern cannot move data in while it runs; stop it and use: npm run headless -- --data-dir DIR --import-microblogpub FOLDER');
  }
  const settings = core.settings.get();
  const stamp = core.clock().toISOString().replace(/[:.]/g, '-');
  const now = core.clock();
  const movedAside = await reopen(async (dataDir) => {
    // On the backup thread: upgrading microblog.pub's database and copying its rows are long
    // synchronous SQLite work, seconds for a large one.
    const staging = await onBackupThread({ kind: 'stageImport', folder, dataDir, settings, now: now.toISOString() });
    try {
      return await swapIntoDataFolder(dataDir, staging, `before-import-${stamp}`);
    } finally {
      await rm(staging, { recursive: true, force: true });
    }
  }, undoSwap);
  return { preview, imported: true, movedAside };
}

// Exports in the shapes Mastodon uses, so other servers can read them: the author's archive
// (actor.json, outbox.json with every post of ours wrapped in Create, likes.json and
// bookmarks.json, in one .tar.gz) and the people as CSV (following with Mastodon's columns,
// followers as one column). Files land in the data folder's exports/ directory, readable by
// the user alone.
import { join } from 'node:path';
import { createGzip } from 'node:zlib';
import { and, asc, eq, gt, inArray, isNull, sql } from 'drizzle-orm';
import type { Db } from '../../../db/client';
import { actor, follower, following, inbox, outbox } from '../../../db/schema';
import { BadInputError } from '../errors';
import { publishedKeys, toPerson } from '../federation/actor-document';
import { AS_CONTEXT, wrapperActivity } from '../federation/collections';
import type { LocalActor } from '../federation/identity';
import { POST_TYPES } from '../federation/webfinger';
import type { DataPaths } from '../paths';
import type { FederationContext } from '../ports';
import type { SettingsStore } from '../settings';
import { TAR_END, tarHeader, tarPadding } from './tar';
import { writePrivateFile, writePrivateStream } from './private-file';

/** What the exports read from the running core. */
export interface ExportDeps {
  paths: Pick<DataPaths, 'dir'>;
  db: Db;
  clock: () => Date;
  settings: Pick<SettingsStore, 'get'>;
  fed: Pick<FederationContext, 'keys'>;
  identity(): LocalActor | null;
}

export const FOLLOWING_CSV_HEADER = 'Account address,Show boosts,Notify on new posts,Languages';
export const FOLLOWERS_CSV_HEADER = 'Account address';

/** The data folder's exports/ directory. */
export function exportsDir(core: ExportDeps): string {
  return join(core.paths.dir, 'exports');
}

const stamp = (at: Date) => at.toISOString().replace(/[:.]/g, '-');

/** Posts built and serialised per page, with the main thread given back between pages: the
 * whole outbox in one piece (query, every Create, JSON.stringify) held it 2.6–4.5 s for 20,000
 * posts. */
const PAGE = 200;
const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/** The archive's entries, by name, serialised as Mastodon's archive writes them (indented JSON). */
export async function archiveDocuments(core: ExportDeps): Promise<Record<'actor.json' | 'outbox.json' | 'likes.json' | 'bookmarks.json', Buffer[]>> {
  const local = core.identity();
  if (!local) throw new BadInputError('Tern has no public address yet; set the base URL and user name in Settings first.');
  const person = toPerson(local, core.settings.get(), await publishedKeys(core.fed.keys));
  // All of the author's own posts, whatever their audience (Mastodon's archive does the same).
  const live = and(inArray(outbox.apType, [...POST_TYPES]), eq(outbox.isDeleted, false), eq(outbox.isTransient, false));
  // Their ids first, read along the primary key a page at a time (one ordered query over the whole
  // outbox took ≈ 50 ms per 10,000 posts) and put in order here, then the rows a page at a time.
  const found: { id: number; published: string }[] = [];
  for (let after = 0; ; ) {
    const page = core.db
      .select({ id: outbox.id, published: sql<string>`${outbox.apPublishedAt}` })
      .from(outbox)
      .where(and(live, gt(outbox.id, after)))
      .orderBy(asc(outbox.id))
      .limit(PAGE * 10)
      .all();
    found.push(...page);
    if (page.length < PAGE * 10) break;
    after = page[page.length - 1]?.id ?? after;
    await yieldToLoop();
  }
  // As SQLite orders them: by the stored text, then by id.
  const ids = found.sort((a, b) => (a.published < b.published ? -1 : a.published > b.published ? 1 : a.id - b.id)).map((r) => r.id);
  const posts: Buffer[] = [];
  for (let start = 0; start < ids.length; start += PAGE) {
    await yieldToLoop();
    const pageIds = ids.slice(start, start + PAGE);
    const rows = new Map(core.db.select().from(outbox).where(inArray(outbox.id, pageIds)).all().map((row) => [row.id, row]));
    for (const id of pageIds) {
      const row = rows.get(id);
      if (row) posts.push(Buffer.from(indented(wrapperActivity(row, local, 'Create'), 4)));
    }
  }
  const likes = core.db
    .select({ id: outbox.activityObjectApId })
    .from(outbox)
    .where(and(eq(outbox.apType, 'Like'), eq(outbox.isDeleted, false), isNull(outbox.undoneByOutboxObjectId)))
    .orderBy(asc(outbox.id))
    .all()
    .flatMap((r) => (r.id ? [r.id] : []));
  await yieldToLoop();
  const bookmarks = core.db
    .select({ id: inbox.apId })
    .from(inbox)
    .where(and(eq(inbox.isBookmarked, true), eq(inbox.isDeleted, false)))
    .orderBy(asc(inbox.id))
    .all()
    .map((r) => r.id);
  await yieldToLoop();
  return {
    'actor.json': [Buffer.from(JSON.stringify(person, null, 2))],
    'outbox.json': collection('outbox.json', posts),
    'likes.json': collection('likes.json', likes.map((id) => Buffer.from(indented(id, 4)))),
    'bookmarks.json': collection('bookmarks.json', bookmarks.map((id) => Buffer.from(indented(id, 4)))),
  };
}

/** `value` as JSON.stringify(…, null, 2) writes it `depth` spaces in. */
function indented(value: unknown, depth: number): string {
  const pad = ' '.repeat(depth);
  return pad + JSON.stringify(value, null, 2).replace(/\n/g, `\n${pad}`);
}

/** An OrderedCollection of items already serialised (indented at their depth), in parts: the
 * same bytes as JSON.stringify(collection, null, 2), never one string or buffer of the whole. */
function collection(id: string, items: Buffer[]): Buffer[] {
  const head = JSON.stringify({ '@context': AS_CONTEXT, id, type: 'OrderedCollection', totalItems: items.length }, null, 2).slice(0, -2);
  if (items.length === 0) return [Buffer.from(`${head},\n  "orderedItems": []\n}`)];
  const parts: Buffer[] = [Buffer.from(`${head},\n  "orderedItems": [\n`)];
  const comma = Buffer.from(',\n');
  items.forEach((item, i) => parts.push(item, i < items.length - 1 ? comma : Buffer.from('\n')));
  parts.push(Buffer.from('  ]\n}'));
  return parts;
}

/** Writes the archive into `destDir` as tern-archive-<time>.tar.gz. Tar and gzip as a stream
 * (zlib's stream compresses in the thread pool): one buffer of the whole took ≈ 80 ms of the main
 * thread to join for 10,000 posts, and gzipSync ≈ 3.5 ms per MB. */
export async function exportArchive(core: ExportDeps, destDir: string = exportsDir(core)): Promise<{ path: string; bytes: number }> {
  const documents = await archiveDocuments(core);
  const mtime = core.clock();
  async function* tar(): AsyncGenerator<Buffer> {
    for (const [name, parts] of Object.entries(documents)) {
      const size = parts.reduce((sum, part) => sum + part.length, 0);
      yield tarHeader({ name, type: 'file', mode: 0o600, mtime }, size);
      // A few hundred parts at a time: the stream takes them as one chunk.
      for (let i = 0; i < parts.length; i += 256) yield Buffer.concat(parts.slice(i, i + 256));
      yield tarPadding(size);
    }
    yield TAR_END;
  }
  const path = join(destDir, `tern-archive-${stamp(mtime)}.tar.gz`);
  const bytes = await writePrivateStream(path, tar(), { through: createGzip() });
  return { path, bytes };
}

/** One CSV field, quoted when it holds a comma, a quote or a line break (RFC 4180). */
export function csvField(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

/** user@host from a stored handle (`@user@host`), else the actor id. */
function address(handle: string | null, apId: string): string {
  return handle ? handle.replace(/^@/, '') : apId;
}

/** People exported a batch at a time, the thread let go between: remote actors decide how many
 * follow, and reading 80,000 followers in one go held the main thread 93–169 ms. */
const CSV_BATCH = 5000;

/** Every row of `people` (followers or followed), oldest first, as its account address; read by
 * (created_at, id) a batch at a time (one who arrives meanwhile is in it, at the end). */
async function addressesOf(core: ExportDeps, people: typeof follower | typeof following): Promise<string[]> {
  const out: string[] = [];
  let after: { at: string; id: number } | null = null;
  for (;;) {
    const rows: { apId: string; handle: string | null; at: string; id: number }[] = core.db
      .select({ apId: people.apActorId, handle: actor.handle, at: sql<string>`${people.createdAt}`, id: people.id })
      .from(people)
      .leftJoin(actor, eq(actor.id, people.actorId))
      .where(after === null ? undefined : sql`(${people.createdAt}, ${people.id}) > (${after.at}, ${after.id})`)
      .orderBy(asc(people.createdAt), asc(people.id))
      .limit(CSV_BATCH)
      .all();
    for (const r of rows) out.push(address(r.handle, r.apId));
    const last = rows.at(-1);
    if (rows.length < CSV_BATCH || last === undefined) return out;
    after = { at: last.at, id: last.id };
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** Mastodon's following_accounts.csv. */
export async function exportFollowingCsv(core: ExportDeps): Promise<string> {
  const rows = await addressesOf(core, following);
  return [FOLLOWING_CSV_HEADER, ...rows.map((a) => `${csvField(a)},true,false,`)].join('\n') + '\n';
}

/** The followers, one `Account address` column. */
export async function exportFollowersCsv(core: ExportDeps): Promise<string> {
  const rows = await addressesOf(core, follower);
  return [FOLLOWERS_CSV_HEADER, ...rows.map(csvField)].join('\n') + '\n';
}

/** Saves a CSV export into exports/ as <kind>-<time>.csv (mode 0600). */
export async function saveCsvExport(core: ExportDeps, kind: 'following' | 'followers', csv: string): Promise<{ path: string }> {
  const path = join(exportsDir(core), `${kind}-${stamp(core.clock())}.csv`);
  await writePrivateFile(path, Buffer.from(csv, 'utf8'));
  return { path };
}


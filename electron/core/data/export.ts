// Exports in the shapes Mastodon uses, so other servers can read them: the author's archive
// (actor.json, outbox.json with every post of ours wrapped in Create, likes.json and
// bookmarks.json, in one .tar.gz) and the people as CSV (following with Mastodon's columns,
// followers as one column). Files land in the data folder's exports/ directory, readable by
// the user alone.
import { join } from 'node:path';
import { gzip } from 'node:zlib';
import { promisify } from 'node:util';
import { and, asc, eq, inArray, isNull } from 'drizzle-orm';
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
import { writeTar, type TarEntry } from './tar';
import { writePrivateFile } from './private-file';

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

type Json = Record<string, unknown>;

/** The data folder's exports/ directory. */
export function exportsDir(core: ExportDeps): string {
  return join(core.paths.dir, 'exports');
}

const stamp = (at: Date) => at.toISOString().replace(/[:.]/g, '-');

/** The documents of the archive, by entry name. */
export async function archiveDocuments(core: ExportDeps): Promise<Record<'actor.json' | 'outbox.json' | 'likes.json' | 'bookmarks.json', Json>> {
  const local = core.identity();
  if (!local) throw new BadInputError('Tern has no public address yet; set the base URL and user name in Settings first.');
  const person = toPerson(local, core.settings.get(), await publishedKeys(core.fed.keys));
  // All of the author's own posts, whatever their audience (Mastodon's archive does the same).
  const posts = core.db
    .select()
    .from(outbox)
    .where(and(inArray(outbox.apType, [...POST_TYPES]), eq(outbox.isDeleted, false), eq(outbox.isTransient, false)))
    .orderBy(asc(outbox.apPublishedAt), asc(outbox.id))
    .all();
  const likes = core.db
    .select({ id: outbox.activityObjectApId })
    .from(outbox)
    .where(and(eq(outbox.apType, 'Like'), eq(outbox.isDeleted, false), isNull(outbox.undoneByOutboxObjectId)))
    .orderBy(asc(outbox.id))
    .all()
    .flatMap((r) => (r.id ? [r.id] : []));
  const bookmarks = core.db
    .select({ id: inbox.apId })
    .from(inbox)
    .where(and(eq(inbox.isBookmarked, true), eq(inbox.isDeleted, false)))
    .orderBy(asc(inbox.id))
    .all()
    .map((r) => r.id);
  const collection = (id: string, items: unknown[]): Json => ({
    '@context': AS_CONTEXT,
    id,
    type: 'OrderedCollection',
    totalItems: items.length,
    orderedItems: items,
  });
  return {
    'actor.json': person,
    'outbox.json': collection('outbox.json', posts.map((row) => wrapperActivity(row, local, 'Create'))),
    'likes.json': collection('likes.json', likes),
    'bookmarks.json': collection('bookmarks.json', bookmarks),
  };
}

const gzipOffThread = promisify(gzip);

/** Writes the archive into `destDir` as tern-archive-<time>.tar.gz. */
export async function exportArchive(core: ExportDeps, destDir: string = exportsDir(core)): Promise<{ path: string; bytes: number }> {
  const documents = await archiveDocuments(core);
  const mtime = core.clock();
  const entries: TarEntry[] = Object.entries(documents).map(([name, doc]) => ({
    name,
    type: 'file',
    mode: 0o600,
    mtime,
    data: Buffer.from(JSON.stringify(doc, null, 2)),
  }));
  // Compressed in the thread pool: gzipSync held the main thread ≈ 3.5 ms per MB of posts (a
  // large account exports tens of MB).
  const archive = await gzipOffThread(writeTar(entries));
  const path = join(destDir, `tern-archive-${stamp(mtime)}.tar.gz`);
  await writePrivateFile(path, archive);
  return { path, bytes: archive.length };
}

/** One CSV field, quoted when it holds a comma, a quote or a line break (RFC 4180). */
export function csvField(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

/** user@host from a stored handle (`@user@host`), else the actor id. */
function address(handle: string | null, apId: string): string {
  return handle ? handle.replace(/^@/, '') : apId;
}

/** Mastodon's following_accounts.csv. */
export function exportFollowingCsv(core: ExportDeps): string {
  const rows = core.db
    .select({ apId: following.apActorId, handle: actor.handle })
    .from(following)
    .leftJoin(actor, eq(actor.id, following.actorId))
    .orderBy(asc(following.createdAt), asc(following.id))
    .all();
  return [FOLLOWING_CSV_HEADER, ...rows.map((r) => `${csvField(address(r.handle, r.apId))},true,false,`)].join('\n') + '\n';
}

/** The followers, one `Account address` column. */
export function exportFollowersCsv(core: ExportDeps): string {
  const rows = core.db
    .select({ apId: follower.apActorId, handle: actor.handle })
    .from(follower)
    .leftJoin(actor, eq(actor.id, follower.actorId))
    .orderBy(asc(follower.createdAt), asc(follower.id))
    .all();
  return [FOLLOWERS_CSV_HEADER, ...rows.map((r) => csvField(address(r.handle, r.apId)))].join('\n') + '\n';
}

/** Saves a CSV export into exports/ as <kind>-<time>.csv (mode 0600). */
export async function saveCsvExport(core: ExportDeps, kind: 'following' | 'followers', csv: string): Promise<{ path: string }> {
  const path = join(exportsDir(core), `${kind}-${stamp(core.clock())}.csv`);
  await writePrivateFile(path, Buffer.from(csv, 'utf8'));
  return { path };
}


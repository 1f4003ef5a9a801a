// A thread around one post: its ancestors, walking inReplyTo up to 10 levels (stored rows
// first; missing parents fetched and stored when online), and the replies stored locally,
// received or our own, as a tree flattened depth-first.
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../../../db/client';
import { inbox, outbox, type InboxObject, type OutboxObject } from '../../../../db/schema';
import type { ActorView, PostView, ThreadView } from '../../ipc/author-contract';
import { NotFoundError } from '../../errors';
import { idOf, type Json } from '../ap';
import { findOrFetchObject } from '../lookup';
import { isPostType } from '../outbox';
import { requireLocal, type ActionDeps } from './deps';
import { actorsById, inboxPostView, outboxPostView } from './views';

const MAX_ANCESTORS = 10;
const MAX_DEPTH = 30;

type Row = { kind: 'inbox'; row: InboxObject } | { kind: 'own'; row: OutboxObject };

function findStored(db: DbOrTx, apId: string): Row | null {
  const own = db.select().from(outbox).where(eq(outbox.apId, apId)).get();
  if (own) return { kind: 'own', row: own };
  const received = db.select().from(inbox).where(eq(inbox.apId, apId)).get();
  return received ? { kind: 'inbox', row: received } : null;
}

async function findOrFetch(deps: ActionDeps, apId: string): Promise<Row | null> {
  const stored = findStored(deps.db, apId);
  if (stored || !deps.isOnline()) return stored;
  try {
    const found = await findOrFetchObject({ db: deps.db, fed: deps.fed, clock: deps.clock, local: requireLocal(deps), isOnline: deps.isOnline }, apId);
    if (found.kind === 'own') return { kind: 'own', row: found.row };
    if (found.kind === 'object') return { kind: 'inbox', row: found.row };
  } catch {
    // gone, refused or unreachable: the walk stops here
  }
  return null;
}

const inReplyToOf = (table: typeof inbox | typeof outbox) =>
  sql<string>`coalesce(json_extract(${table.apObject}, '$.inReplyTo.id'), json_extract(${table.apObject}, '$.inReplyTo'))`;

/** A reply as the tree needs it; the whole row is read only for the replies shown. */
interface Reply {
  kind: Row['kind'];
  id: number;
  apId: string;
  parent: string;
  published: Date;
}

/** Stored replies to any of these ids. */
function childrenOf(db: DbOrTx, parents: string[]): Reply[] {
  if (parents.length === 0) return [];
  const received = db
    .select({ id: inbox.id, apId: inbox.apId, parent: inReplyToOf(inbox), published: inbox.apPublishedAt })
    .from(inbox)
    .where(and(inArray(inReplyToOf(inbox), parents), eq(inbox.isDeleted, false), eq(inbox.isTransient, false)))
    .all();
  const own = db
    .select({ id: outbox.id, apId: outbox.apId, parent: inReplyToOf(outbox), published: outbox.apPublishedAt, type: outbox.apType })
    .from(outbox)
    .where(and(inArray(inReplyToOf(outbox), parents), eq(outbox.isDeleted, false), eq(outbox.isTransient, false)))
    .all();
  return [
    ...received.map((r) => ({ kind: 'inbox' as const, ...r })),
    ...own.filter((r) => isPostType(r.type)).map(({ type: _type, ...r }) => ({ kind: 'own' as const, ...r })),
  ];
}

/** The row of each of these replies, in their order (undefined: gone since). */
function rowsOf(db: DbOrTx, replies: Reply[]): (Row | undefined)[] {
  const ids = (kind: Row['kind']) => replies.filter((r) => r.kind === kind).map((r) => r.id);
  const received = new Map(ids('inbox').length ? db.select().from(inbox).where(inArray(inbox.id, ids('inbox'))).all().map((r) => [r.id, r]) : []);
  const own = new Map(ids('own').length ? db.select().from(outbox).where(inArray(outbox.id, ids('own'))).all().map((r) => [r.id, r]) : []);
  return replies.map((r): Row | undefined => {
    const inboxRow = r.kind === 'inbox' ? received.get(r.id) : undefined;
    const ownRow = r.kind === 'own' ? own.get(r.id) : undefined;
    return inboxRow ? { kind: 'inbox', row: inboxRow } : ownRow ? { kind: 'own', row: ownRow } : undefined;
  });
}

/** The thread around `apId`; of its replies, `limit` from `cursor` (a place in the depth-first
 * order: the tree is read whole, a few ms for hundreds of replies, but only the page is turned
 * into views, which is where the time goes — each reply's HTML is sanitized). */
export async function getThread(
  deps: ActionDeps,
  me: ActorView,
  apId: string,
  page: { cursor: string | null; limit: number } = { cursor: null, limit: 50 },
): Promise<ThreadView> {
  const focus = await findOrFetch(deps, apId);
  if (!focus) throw new NotFoundError(deps.isOnline() ? 'That post could not be found.' : 'Tern has not stored that post and is offline.');

  const ancestors: Row[] = [];
  let missingParent: string | null = null;
  const seen = new Set([focus.row.apId]);
  for (let up = idOf((focus.row.apObject as Json).inReplyTo); up && ancestors.length < MAX_ANCESTORS; ) {
    if (seen.has(up)) break;
    seen.add(up);
    const parent = await findOrFetch(deps, up);
    if (!parent) {
      missingParent = up;
      break;
    }
    ancestors.unshift(parent);
    up = idOf((parent.row.apObject as Json).inReplyTo);
  }

  // Replies, level by level, then ordered as a tree (siblings oldest first).
  const byParent = new Map<string, Reply[]>();
  let level = [focus.row.apId];
  for (let depth = 1; depth <= MAX_DEPTH && level.length > 0; depth++) {
    const next: string[] = [];
    for (const child of childrenOf(deps.db, level)) {
      if (seen.has(child.apId)) continue;
      seen.add(child.apId);
      // Appended in place: copying the list for each sibling cost O(n²) for a post's 500 replies.
      const siblings = byParent.get(child.parent);
      if (siblings) siblings.push(child);
      else byParent.set(child.parent, [child]);
      next.push(child.apId);
    }
    level = next;
  }
  const flat: { reply: Reply; depth: number }[] = [];
  const walk = (parent: string, depth: number) => {
    const children = (byParent.get(parent) ?? []).sort((a, b) => a.published.getTime() - b.published.getTime());
    for (const child of children) {
      flat.push({ reply: child, depth });
      walk(child.apId, depth + 1);
    }
  };
  walk(focus.row.apId, 1);

  const from = Math.min(flat.length, Number(page.cursor ?? 0) || 0);
  const slice = flat.slice(from, from + page.limit);
  const rows = rowsOf(deps.db, slice.map((f) => f.reply));
  const shown = slice.flatMap((f, i) => {
    const row = rows[i];
    return row ? [{ row, depth: f.depth }] : [];
  });
  const all = [focus, ...ancestors, ...shown.map((f) => f.row)];
  const actors = actorsById(deps.db, all.flatMap((r) => (r.kind === 'inbox' ? [r.row.actorId] : [])));
  const view = (r: Row): PostView => (r.kind === 'own' ? outboxPostView(r.row, me) : inboxPostView(r.row, actors.get(r.row.actorId)));
  return {
    ancestors: ancestors.map(view),
    post: view(focus),
    replies: shown.map((f) => ({ ...view(f.row), depth: f.depth })),
    totalReplies: flat.length,
    nextCursor: from + shown.length < flat.length ? String(from + shown.length) : null,
    missingParent,
  };
}

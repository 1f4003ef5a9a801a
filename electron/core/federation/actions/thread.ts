// A thread around one post: its ancestors, walking inReplyTo up to 10 levels (stored rows
// first; missing parents fetched and stored when online), and the replies stored locally,
// received or our own, as a tree flattened depth-first.
import { eq } from 'drizzle-orm';
import { prepared, rowDecoder, type DbOrTx } from '../../../../db/client';
import { parseStoredDate } from '../../../../db/columns';
import { inbox, outbox, type InboxObject, type OutboxObject } from '../../../../db/schema';
import type { ActorView, PostView, ThreadView } from '../../ipc/author-contract';
import { NotFoundError } from '../../errors';
import { idOf, type Json } from '../ap';
import { findOrFetchObject } from '../lookup';
import { POST_TYPES } from '../outbox';
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

/** What a row answers, as the inReplyTo indexes (ix_inbox_in_reply_to, ix_outbox_in_reply_to) read it. */
const inReplyTo = (t: string) => `coalesce(json_extract(${t}.ap_object, '$.inReplyTo.id'), json_extract(${t}.ap_object, '$.inReplyTo'))`;
const live = (t: string) => `${t}.is_deleted = 0 AND ${t}.is_transient = 0`;
const ownPost = (t: string) => `+${t}.ap_type IN (${POST_TYPES.map((type) => `'${type}'`).join(', ')})`;

/** At most this many replies are read for one thread (a bound on hostile chains, far above any
 * real thread: Mastodon's largest threads have a few thousand). */
const MAX_REPLIES = 20_000;

// Every stored reply under one post (received or our own), with its depth, in one statement
// prepared once: walking the tree level by level through drizzle built and prepared twelve
// statements for a five-level thread, most of a page's time. The focus is never walked into
// again, so a cycle of inReplyTo through it (a hostile or broken chain) ends there. `+t.ap_id`
// has no affinity, as the indexed expression has none: with the column's TEXT affinity SQLite
// cannot use the index for the join, and builds an automatic index over the whole box per step.
const TREE = `
WITH RECURSIVE tree(kind, id, ap_id, parent, published, depth) AS (
  SELECT 'inbox', i.id, i.ap_id, @root, i.ap_published_at, 1 FROM inbox i WHERE ${inReplyTo('i')} = @root AND ${live('i')}
  UNION ALL
  SELECT 'own', o.id, o.ap_id, @root, o.ap_published_at, 1 FROM outbox o WHERE ${inReplyTo('o')} = @root AND ${live('o')} AND ${ownPost('o')}
  UNION ALL
  SELECT 'inbox', i.id, i.ap_id, t.ap_id, i.ap_published_at, t.depth + 1 FROM tree t JOIN inbox i ON ${inReplyTo('i')} = +t.ap_id
    WHERE t.depth < @depth AND i.ap_id <> @root AND ${live('i')}
  UNION ALL
  SELECT 'own', o.id, o.ap_id, t.ap_id, o.ap_published_at, t.depth + 1 FROM tree t JOIN outbox o ON ${inReplyTo('o')} = +t.ap_id
    WHERE t.depth < @depth AND o.ap_id <> @root AND ${live('o')} AND ${ownPost('o')}
)
SELECT kind, id, ap_id AS apId, parent, published FROM tree LIMIT @max`;

/** A reply as the tree needs it; the whole row is read only for the replies shown. */
interface Reply {
  kind: Row['kind'];
  id: number;
  apId: string;
  parent: string;
  published: string;
}

/** Stored replies under `root`, each with the post it answers. */
function repliesUnder(db: DbOrTx, root: string): Reply[] {
  return prepared<[{ root: string; depth: number; max: number }], Reply>(db, TREE).all({ root, depth: MAX_DEPTH, max: MAX_REPLIES });
}

const decodeInbox = rowDecoder(inbox);
const decodeOutbox = rowDecoder(outbox);
const INBOX_ROWS = 'SELECT * FROM inbox WHERE id IN (SELECT value FROM json_each(?))';
const OUTBOX_ROWS = 'SELECT * FROM outbox WHERE id IN (SELECT value FROM json_each(?))';

/** The row of each of these replies, in their order (undefined: gone since). */
function rowsOf(db: DbOrTx, replies: Reply[]): (Row | undefined)[] {
  const ids = (kind: Row['kind']) => JSON.stringify(replies.filter((r) => r.kind === kind).map((r) => r.id));
  const read = <T extends { id: number }>(source: string, kind: Row['kind'], decode: (raw: Record<string, unknown>) => T) =>
    new Map(replies.some((r) => r.kind === kind) ? prepared<[string], Record<string, unknown>>(db, source).all(ids(kind)).map((raw) => [raw.id as number, decode(raw)]) : []);
  const received = read(INBOX_ROWS, 'inbox', decodeInbox);
  const own = read(OUTBOX_ROWS, 'own', decodeOutbox);
  return replies.map((r): Row | undefined => {
    const inboxRow = r.kind === 'inbox' ? received.get(r.id) : undefined;
    const ownRow = r.kind === 'own' ? own.get(r.id) : undefined;
    return inboxRow ? { kind: 'inbox', row: inboxRow } : ownRow ? { kind: 'own', row: ownRow } : undefined;
  });
}

/** The thread around `apId`; of its replies, `limit` from `cursor` (a place in the depth-first
 * order: the tree is read whole, one statement of about 1 ms for 500 replies, but only the page
 * is turned into views — each reply's row read and its HTML sanitized again). */
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

  // Replies, then ordered as a tree (siblings oldest first). A reply is kept once, where the
  // walk first met it (an ancestor is never shown again as a reply).
  const byParent = new Map<string, Reply[]>();
  const time = new Map<Reply, number>();
  for (const child of repliesUnder(deps.db, focus.row.apId)) {
    if (seen.has(child.apId)) continue;
    seen.add(child.apId);
    time.set(child, parseStoredDate(child.published).getTime());
    // Appended in place: copying the list for each sibling cost O(n²) for a post's 500 replies.
    const siblings = byParent.get(child.parent);
    if (siblings) siblings.push(child);
    else byParent.set(child.parent, [child]);
  }
  const flat: { reply: Reply; depth: number }[] = [];
  const walk = (parent: string, depth: number) => {
    const children = (byParent.get(parent) ?? []).sort((a, b) => time.get(a)! - time.get(b)! || a.id - b.id);
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

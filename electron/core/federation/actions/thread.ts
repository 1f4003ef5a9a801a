// A thread around one post: its ancestors, walking inReplyTo up to 10 levels (stored rows
// first; missing parents fetched and stored when online), and the replies stored locally,
// received or our own, as a tree flattened depth-first.
import { allRows, prepared, rowDecoder, type DbOrTx } from '../../../../db/client';
import { parseStoredDate } from '../../../../db/columns';
import { inbox, outbox, type InboxObject, type OutboxObject } from '../../../../db/schema';
import type { ActorView, PostView, ThreadView } from '../../ipc/author-contract';
import { NotFoundError } from '../../errors';
import { httpUrl, idOf, type Json } from '../ap';
import { findOrFetchObject } from '../lookup';
import { POST_TYPES } from '../outbox';
import { requireLocal, type ActionDeps } from './deps';
import { actorsById, inboxPostView, outboxPostView } from './views';
import { quoteStateField } from '../quoting';
import { quoteApprovalField } from '../quote-authorizations';

const MAX_ANCESTORS = 10;
const MAX_DEPTH = 30;
/** Received quotes in one answer of the thread that carry the approval the author gave them (the
 * rest are acted on from their notifications). */
export const QUOTE_APPROVALS_PER_VIEW = 40;

type Row = { kind: 'inbox'; row: InboxObject } | { kind: 'own'; row: OutboxObject };

const decodeInbox = rowDecoder(inbox);
const decodeOutbox = rowDecoder(outbox);

// Prepared once (a query built through drizzle is built and prepared again on every call).
const OWN_BY_AP_ID = 'SELECT * FROM outbox WHERE ap_id = ?';
const RECEIVED_BY_AP_ID = 'SELECT * FROM inbox WHERE ap_id = ?';

function findStored(db: DbOrTx, apId: string): Row | null {
  const own = prepared<[string], Record<string, unknown>>(db, OWN_BY_AP_ID).get(apId);
  if (own) return { kind: 'own', row: decodeOutbox(own) };
  const received = prepared<[string], Record<string, unknown>>(db, RECEIVED_BY_AP_ID).get(apId);
  return received ? { kind: 'inbox', row: decodeInbox(received) } : null;
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

/** What a row answers, as the replies indexes (ix_inbox_replies, ix_outbox_replies) read it. */
const inReplyTo = (t: string) => `coalesce(json_extract(${t}.ap_object, '$.inReplyTo.id'), json_extract(${t}.ap_object, '$.inReplyTo'))`;
const live = (t: string) => `${t}.is_deleted = 0 AND ${t}.is_transient = 0`;
const ownPost = (t: string) => `+${t}.ap_type IN (${POST_TYPES.map((type) => `'${type}'`).join(', ')})`;

/** At most this many replies are read for one thread (a bound on hostile chains, far above any
 * real thread: Mastodon's largest threads have a few thousand). */
const MAX_REPLIES = 20_000;

// The replies to a level of the tree (a JSON array of ap_ids), each with its parent's place in
// that array: one statement per box, prepared once, run once per level (a thread of 500 replies
// five levels deep: ten runs). The array is the outer loop, each of its ids found through the
// replies indexes, which hold every column read here (revision 70cce0da20c3): no reply's row is
// read. One recursive statement over both boxes (a queue row and four look-ups per reply, and
// each reply's row) took ≈ 1.4 ms of CPU for 500 replies; this, ≈ 0.9 ms. `p.value` has no
// affinity, as the indexed expression has none (a column with TEXT affinity would keep SQLite
// from using the index for the join).
const RECEIVED_REPLIES = `
SELECT p.key, i.id, i.ap_id, i.ap_published_at
FROM json_each(@parents) p JOIN inbox i ON ${inReplyTo('i')} = p.value
WHERE ${live('i')} AND i.ap_id <> @root LIMIT @max`;
const OWN_REPLIES = `
SELECT p.key, o.id, o.ap_id, o.ap_published_at
FROM json_each(@parents) p JOIN outbox o ON ${inReplyTo('o')} = p.value
WHERE ${live('o')} AND ${ownPost('o')} AND o.ap_id <> @root LIMIT @max`;

/** A row of RECEIVED_REPLIES or OWN_REPLIES, as an array: the place of the reply's parent in
 * the level above, and the reply's id, ap_id and time. */
type Found = [at: number, id: number, apId: string, published: string];

/** The replies under a post, a column each (entry k of each is reply k): what the tree needs;
 * the whole row is read only for the replies shown. Columns of the statements' array rows, not
 * an object per reply: rows that live through the call, made as objects by better-sqlite3, went
 * to V8's old generation, keeping their strings from the scavenges (see allRows). */
interface Replies {
  kind: Row['kind'][];
  id: number[];
  apId: string[];
  parent: string[];
  published: string[];
}

const byParentPlace = (a: Found, b: Found) => a[0] - b[0];

/** Stored replies under `root` (received or our own), each with the post it answers, level by
 * level (MAX_DEPTH levels at most); within a level by parent, in the order the parents were
 * found, a parent's received replies before our own. An ap_id is looked up once, so a chain of
 * inReplyTo that loops (a hostile or broken one) ends, `root` is never a reply, and the replies
 * to one post are one run of the list. */
function repliesUnder(db: DbOrTx, root: string): Replies {
  const replies: Replies = { kind: [], id: [], apId: [], parent: [], published: [] };
  const looked = new Set([root]);
  let parents = [root];
  for (let depth = 1; depth <= MAX_DEPTH && parents.length > 0 && replies.id.length < MAX_REPLIES; depth++) {
    const args = { parents: JSON.stringify(parents), root, max: MAX_REPLIES - replies.id.length };
    // Sorted in place (a stable sort: a parent's replies stay in the order SQLite found them).
    const received = prepared<[typeof args], Found>(db, RECEIVED_REPLIES).raw().all(args).sort(byParentPlace);
    const own = prepared<[typeof args], Found>(db, OWN_REPLIES).raw().all(args).sort(byParentPlace);
    const next: string[] = [];
    for (let i = 0, j = 0; (i < received.length || j < own.length) && replies.id.length < MAX_REPLIES; ) {
      const ofOwn = i === received.length || (j < own.length && own[j]![0] < received[i]![0]);
      const [at, id, apId, published] = ofOwn ? own[j++]! : received[i++]!;
      replies.kind.push(ofOwn ? 'own' : 'inbox');
      replies.id.push(id);
      replies.apId.push(apId);
      replies.parent.push(parents[at]!);
      replies.published.push(published);
      if (!looked.has(apId)) {
        looked.add(apId);
        next.push(apId);
      }
    }
    parents = next;
  }
  return replies;
}

const INBOX_ROWS = 'SELECT * FROM inbox WHERE id IN (SELECT value FROM json_each(?))';
const OUTBOX_ROWS = 'SELECT * FROM outbox WHERE id IN (SELECT value FROM json_each(?))';

/** The row of each of these replies (places in `replies`), in their order (undefined: gone since). */
function rowsOf(db: DbOrTx, replies: Replies, shown: number[]): (Row | undefined)[] {
  const ids = (kind: Row['kind']) => JSON.stringify(shown.filter((k) => replies.kind[k] === kind).map((k) => replies.id[k]));
  const read = <T extends { id: number }>(source: string, kind: Row['kind'], decode: (raw: Record<string, unknown>) => T) =>
    new Map(shown.some((k) => replies.kind[k] === kind) ? allRows(prepared<[string]>(db, source), ids(kind)).map((raw) => [raw.id as number, decode(raw)]) : []);
  const received = read(INBOX_ROWS, 'inbox', decodeInbox);
  const own = read(OUTBOX_ROWS, 'own', decodeOutbox);
  return shown.map((k): Row | undefined => {
    const inboxRow = replies.kind[k] === 'inbox' ? received.get(replies.id[k]!) : undefined;
    const ownRow = replies.kind[k] === 'own' ? own.get(replies.id[k]!) : undefined;
    return inboxRow ? { kind: 'inbox', row: inboxRow } : ownRow ? { kind: 'own', row: ownRow } : undefined;
  });
}

/** The thread around `apId`; of its replies, `limit` from `cursor` (a place in the depth-first
 * order: the tree is read whole, about 1 ms for 500 replies, but only the page is turned into
 * views — each reply's row read and its HTML sanitized again). */
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
      // The page offers it as a link to open in the browser: an http(s) address only, never
      // whatever scheme a remote server put in inReplyTo (search-ms:, file:, javascript:…).
      missingParent = httpUrl(up);
      break;
    }
    ancestors.unshift(parent);
    up = idOf((parent.row.apObject as Json).inReplyTo);
  }

  // Replies, then ordered as a tree (siblings oldest first). A reply is kept once, where the
  // walk first met it (an ancestor is never shown again as a reply). The tree is places in
  // `replies` (a post's replies are one run of it), with no list or object made for each post
  // or reply: V8 gave such lists (one per post, living as long as the call, holding the call's
  // rows) space in its old generation, where dead ones kept the rows and their strings from the
  // scavenges, which then took 13 ms instead of 1–4 on later-replies pages.
  const replies = repliesUnder(deps.db, focus.row.apId);
  const count = replies.id.length;
  const kept = new Uint8Array(count);
  const firstReply = new Map<string, number>();
  for (let k = 0; k < count; k++) {
    if (!firstReply.has(replies.parent[k]!)) firstReply.set(replies.parent[k]!, k);
    if (seen.has(replies.apId[k]!)) continue;
    seen.add(replies.apId[k]!);
    kept[k] = 1;
  }
  // A time is read only where there are siblings to sort: most replies in a deep thread are an
  // only child.
  const times = new Float64Array(count).fill(Number.NaN);
  const timeOf = (k: number) => (Number.isNaN(times[k]!) ? (times[k] = parseStoredDate(replies.published[k]!).getTime()) : times[k]!);
  const oldestFirst = (a: number, b: number) => timeOf(a) - timeOf(b) || replies.id[a]! - replies.id[b]!;
  const order: number[] = [];
  const depths: number[] = [];
  const visit = (k: number, depth: number) => {
    order.push(k);
    depths.push(depth);
    walk(replies.apId[k]!, depth + 1);
  };
  const walk = (parent: string, depth: number) => {
    const first = firstReply.get(parent);
    if (first === undefined) return;
    let end = first;
    while (end < count && replies.parent[end] === parent) end++;
    if (end - first === 1) {
      if (kept[first]) visit(first, depth);
      return;
    }
    const children: number[] = [];
    for (let k = first; k < end; k++) if (kept[k]) children.push(k);
    for (const k of children.sort(oldestFirst)) visit(k, depth);
  };
  walk(focus.row.apId, 1);

  const from = Math.min(order.length, Number(page.cursor ?? 0) || 0);
  const slice = order.slice(from, from + page.limit);
  const rows = rowsOf(deps.db, replies, slice);
  const shown = slice.flatMap((k, i) => {
    const row = rows[i];
    return row ? [{ row, depth: depths[from + i]! }] : [];
  });
  const all = [focus, ...ancestors, ...shown.map((f) => f.row)];
  const actors = actorsById(deps.db, all.flatMap((r) => (r.kind === 'inbox' ? [r.row.actorId] : [])));
  const now = deps.clock();
  // A quote: for the author's own, whether it was approved; for one of the author's posts, the
  // approval they gave (to revoke it, or allow it again, from the post).
  // At most QUOTE_APPROVALS_PER_VIEW received quotes of the author's posts carry their approval:
  // each is a few indexed reads, and a thread's replies are anyone's.
  const approvals = { left: QUOTE_APPROVALS_PER_VIEW };
  const view = (r: Row): PostView => {
    if (r.kind === 'own') return { ...outboxPostView(r.row, me), ...quoteStateField(deps.db, me.apId, r.row, now) };
    const plain = inboxPostView(r.row, actors.get(r.row.actorId));
    return plain.quote === undefined ? plain : { ...plain, ...quoteApprovalField(deps.db, r.row, plain.quote, approvals) };
  };
  return {
    ancestors: ancestors.map(view),
    post: view(focus),
    replies: shown.map((f) => ({ ...view(f.row), depth: f.depth })),
    totalReplies: order.length,
    nextCursor: from + shown.length < order.length ? String(from + shown.length) : null,
    missingParent,
  };
}


// Grouped notifications (Mastodon 4.3, GET /api/v2/notifications): notifications of one kind about
// one thing in one stretch of time share a group key, and a page lists one group per key. Mastodon
// groups favourites and reblogs of one status, and follows; Tern also groups Pleroma's emoji
// reactions, per status and per emoji, so a client can say "3 people reacted 🎉" — never with the
// likes of that status, nor with the reactions of another emoji (Pleroma and Akkoma do not group
// at all; a client that cannot show a reaction group leaves it out of grouped_types[]).
// Mastodon stores a group key with each notification; Tern adds no column for it (the schema is
// a contract), so the key is computed from what the row holds: its type, its status, its emoji,
// and a fixed 12-hour window of its time (Mastodon's groups span at most 12 hours).
import { createHash } from 'node:crypto';
import type { NotificationItem, NotificationKey } from '../notifications/service';
import { REACTION_NOTIFICATION } from './notification-types';

/** The Mastodon types Tern groups (unless grouped_types[] leaves some out). */
export const GROUPABLE_TYPES: readonly string[] = ['favourite', 'reblog', 'follow', REACTION_NOTIFICATION];

const WINDOW_MS = 12 * 60 * 60 * 1000;

/** What a group key is made of. */
export type Keyed = Pick<NotificationKey, 'id' | 'createdAt' | 'actorId' | 'reaction'> & { outboxObject: { id: number } | null };

/** A full notification's key fields. */
export const keyedOf = (item: NotificationItem) => ({ ...item, actorId: item.actor?.id ?? null }) satisfies Keyed;

/** A notification's group key, given its Mastodon type; `ungrouped-{id}` (the form Mastodon's
 * documentation lets clients assume) for a type not grouped. */
export function groupKeyOf(item: Keyed, type: string, groupable: readonly string[] = GROUPABLE_TYPES): string {
  const ungrouped = `ungrouped-${item.id}`;
  if (!groupable.includes(type) || item.actorId === null) return ungrouped;
  const window = Math.floor(Date.parse(item.createdAt) / WINDOW_MS);
  if (Number.isNaN(window)) return ungrouped;
  if (type === 'follow') return `follow-${window}`;
  const post = item.outboxObject?.id;
  if (post === undefined) return ungrouped;
  if (type !== REACTION_NOTIFICATION) return `${type}-${post}-${window}`;
  if (!item.reaction) return ungrouped;
  // The emoji itself (URL-safe: a client may put the key in a path), and for a custom emoji its
  // picture too: two servers' :blobcat: are two emoji.
  const picture = item.reaction.custom ? `-${createHash('sha256').update(item.reaction.custom.url).digest('hex').slice(0, 12)}` : '';
  return `${type}-${post}-${encodeURIComponent(item.reaction.emoji)}${picture}-${window}`;
}

/** Notifications read at most for one page of groups (a flood of one group — 10,000 reactions on
 * one post — answers with a group of these, and its Link goes on past them), and past the page to
 * count its groups' older notifications. */
export const MAX_GROUPED_ROWS = 800;
export const MAX_COUNTED_PAST_PAGE = 800;
const BATCH = 80;

/** A mapped notification, as the mapper gives one (entities.ts). */
interface Mapped {
  id: string;
  type: string;
  created_at: string;
  account: { id: string };
  status?: { id: string };
  emoji?: string;
  emoji_url?: string;
}

type Actor = NonNullable<NotificationItem['actor']>;

interface Group<M extends Mapped> {
  key: string;
  /** The first one mapped: its status, type and emoji are the group's. */
  shown: M;
  /** The group's notifications in this page. */
  ids: number[];
  /** Its notifications older than the page (read past it). */
  older: number;
  newest: { id: number; at: string };
  /** Distinct actors, in the order read (the page's, then older ones'). */
  actors: Actor[];
  /** When its window starts (ms); null: a group of one. */
  since: number | null;
}

/** How many sample accounts a group names (as Mastodon's). */
const SAMPLE_ACCOUNTS = 8;

/** Older notifications whose actor is looked up at most per answer, for sample accounts. */
const MAX_OLDER_ACTORS = 64;

/**
 * One page of notification groups, at most `limit` of them, read newest first (oldest first above
 * min_id: `climbing`) in batches until the next row would start one group too many, the rows run
 * out or MAX_GROUPED_ROWS are read. A group's page_min_id and page_max_id are its notifications
 * within the page; as Mastodon's, its notifications_count and sample accounts also take its older
 * notifications, read past the page by their keys alone (down to its window's start, at most
 * MAX_COUNTED_PAST_PAGE rows: a flood counts what these rows hold). Climbing, nothing older is
 * read: a group counts the notifications of its key in the page. `next` and `prev`: the ids the
 * Link header goes on from (the page's rows end there, whatever of them was left out).
 */
export function groupedPage<M extends Mapped>(input: {
  limit: number;
  climbing: boolean;
  /** At most `limit` rows past `cursor` (null: from the page's bound), newest first as
   * NotificationService.range gives them. */
  read: (cursor: NotificationItem | null, limit: number) => NotificationItem[];
  /** At most `limit` keys older than `before`, newest first (NotificationService.rangeKeys). */
  readKeys: (before: number, limit: number) => NotificationKey[];
  /** Its Mastodon type, or null when it is not asked for. */
  typeOf: (item: NotificationItem | NotificationKey) => string | null;
  groupable: readonly string[];
  map: (item: NotificationItem) => M | null;
  account: (actor: Actor) => M['account'];
  /** The actor of a notification read by its key (for a sample account). */
  actorOf: (id: number) => Actor | null;
  accountId?: string | undefined;
}) {
  const groups = new Map<string, Group<M>>();
  const unlisted = new Set<string>();
  const consumed: number[] = [];
  const keyOf = (item: Keyed, type: string | null) =>
    type !== null && (input.accountId === undefined || String(item.actorId ?? 0) === input.accountId) ? groupKeyOf(item, type, input.groupable) : null;

  // The page, its rows read whole.
  let cursor: NotificationItem | null = null;
  /** Read past the page (descending): where the older rows start, and those already read. */
  let past: { before: number; rows: (NotificationItem | NotificationKey)[] } | null = null;
  reading: while (consumed.length < MAX_GROUPED_ROWS) {
    const want = Math.min(BATCH, MAX_GROUPED_ROWS - consumed.length);
    const batch = input.read(cursor, want);
    // In the page's order: down from the top, or up from min_id.
    const rows = input.climbing ? [...batch].reverse() : batch;
    for (const [i, item] of rows.entries()) {
      const key = keyOf(keyedOf(item), input.typeOf(item));
      let group = key === null ? undefined : groups.get(key);
      if (key !== null && !group && groups.size >= input.limit) {
        // This row starts the next page; the rest of the batch is older.
        past = input.climbing ? null : { before: batch.at(-1)!.id, rows: rows.slice(i) };
        break reading;
      }
      consumed.push(item.id);
      if (key === null) continue;
      if (!group) {
        if (unlisted.has(key)) continue;
        const shown = input.map(item);
        // Its post is gone, or no account stands behind it: not listed, as in v1 (nor the rest of
        // its group, which is about the same post: not mapped again).
        if (!shown || (input.accountId !== undefined && shown.account.id !== input.accountId)) {
          if (!key.startsWith('ungrouped-')) unlisted.add(key);
          continue;
        }
        const since = key.startsWith('ungrouped-') ? null : Math.floor(Date.parse(item.createdAt) / WINDOW_MS) * WINDOW_MS;
        groups.set(key, (group = { key, shown, ids: [], older: 0, newest: { id: item.id, at: item.createdAt }, actors: [], since }));
      }
      group.ids.push(item.id);
      if (item.id > group.newest.id) group.newest = { id: item.id, at: item.createdAt };
      if (item.actor && !group.actors.some((a) => a.id === item.actor!.id)) group.actors.push(item.actor);
    }
    if (batch.length < want) break;
    cursor = input.climbing ? batch[0]! : batch.at(-1)!;
    if (consumed.length >= MAX_GROUPED_ROWS && !input.climbing) past = { before: cursor.id, rows: [] };
  }

  // Past the page: its groups' older notifications, counted by their keys down to the oldest
  // group's window start.
  const starts = [...groups.values()].map((g) => g.since).filter((t): t is number => t !== null);
  if (past !== null && starts.length > 0) {
    const floor = Math.min(...starts);
    let lookups = MAX_OLDER_ACTORS;
    let { before, rows } = past;
    counting: for (let read = 0; ; ) {
      for (const row of rows) {
        if (Date.parse(row.createdAt) < floor) break counting;
        const keyed = 'actor' in row ? keyedOf(row) : row;
        const key = keyOf(keyed, input.typeOf(row));
        const group = key === null ? undefined : groups.get(key);
        if (!group) continue;
        group.older++;
        if (keyed.actorId !== null && group.actors.length < SAMPLE_ACCOUNTS && !group.actors.some((a) => a.id === keyed.actorId) && lookups-- > 0) {
          const actor = 'actor' in row ? row.actor : input.actorOf(row.id);
          if (actor) group.actors.push(actor);
        }
      }
      const want = Math.min(BATCH * 2, MAX_COUNTED_PAST_PAGE - read);
      if (want <= 0) break;
      rows = input.readKeys(before, want);
      read += rows.length;
      if (rows.length === 0) break;
      before = rows.at(-1)!.id;
    }
  }

  const accounts = new Map<string, M['account']>();
  const notificationGroups = [...groups.values()]
    .sort((a, b) => b.newest.id - a.newest.id)
    .map((g) => {
      // Newest first (read climbing, the last read are the newest); an ended poll of the
      // author's own has no actor: its account is the author's.
      const actors = input.climbing ? [...g.actors].reverse() : g.actors;
      const sample = actors.length > 0 ? actors.slice(0, SAMPLE_ACCOUNTS).map(input.account) : [g.shown.account];
      for (const a of sample) accounts.set(a.id, a);
      return {
        group_key: g.key,
        notifications_count: g.ids.length + g.older,
        type: g.shown.type,
        most_recent_notification_id: String(g.newest.id),
        page_min_id: String(Math.min(...g.ids)),
        page_max_id: String(Math.max(...g.ids)),
        latest_page_notification_at: new Date(g.newest.at).toISOString(),
        sample_account_ids: sample.map((a) => a.id),
        ...(g.shown.status ? { status_id: g.shown.status.id } : {}),
        ...(g.shown.emoji !== undefined ? { emoji: g.shown.emoji } : {}),
        ...(g.shown.emoji_url !== undefined ? { emoji_url: g.shown.emoji_url } : {}),
      };
    });
  const [low, high] = consumed.length === 0 ? [undefined, undefined] : [String(Math.min(...consumed)), String(Math.max(...consumed))];
  return { notificationGroups, shown: [...groups.values()].map((g) => g.shown), accounts: [...accounts.values()], next: low, prev: high };
}

/** Notifications read at most to count unread groups (a flood of one group counts once, read on
 * these rows at most). */
export const MAX_COUNTED_ROWS = 2000;

/** How many groups the notifications `read` gives (newest first, by their keys, in batches older
 * than `before`) make, of those `keep` keeps, at most `limit`: Mastodon 4.3's unread_count of
 * groups. Not mapped: a group counts as v1's unread_count counts its notifications, whether its
 * post is still there or not. */
export function countGroups(input: {
  limit: number;
  read: (before: number | null, limit: number) => NotificationKey[];
  typeOf: (item: NotificationKey) => string | null;
  keep: (item: NotificationKey) => boolean;
  groupable: readonly string[];
}): number {
  const keys = new Set<string>();
  let before: number | null = null;
  for (let read = 0; read < MAX_COUNTED_ROWS && keys.size < input.limit; ) {
    const want = Math.min(BATCH * 2, MAX_COUNTED_ROWS - read);
    const batch = input.read(before, want);
    for (const item of batch) {
      const type = input.typeOf(item);
      if (type !== null && input.keep(item)) keys.add(groupKeyOf(item, type, input.groupable));
      if (keys.size >= input.limit) break;
    }
    read += batch.length;
    if (batch.length < want) break;
    before = batch.at(-1)!.id;
  }
  return Math.min(keys.size, Math.max(0, input.limit));
}

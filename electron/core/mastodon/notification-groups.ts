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

/** What a group key groupKeyOf gave names: one notification, or a type, its post (none for
 * follows) and its window — whose bounds `from` and `to` are. A reaction's emoji is not parsed
 * back (an emoji may hold '-'): a row is of the group when groupKeyOf gives it the same key. Null
 * for a key Tern never gives. */
export type GroupKeyParts = { notification: number } | { type: string; post: number | null; from: Date; to: Date };

export function partsOfGroupKey(key: string): GroupKeyParts | null {
  const one = /^ungrouped-(\d{1,15})$/.exec(key);
  if (one) return { notification: Number(one[1]) };
  const match = /^(follow)-(-?\d{1,9})$/.exec(key) ?? /^(favourite|reblog)-(\d{1,15})-(-?\d{1,9})$/.exec(key) ?? /^(pleroma:emoji_reaction)-(\d{1,15})-.+-(-?\d{1,9})$/s.exec(key);
  if (!match) return null;
  const [type, post, window] = match[1] === 'follow' ? [match[1], null, Number(match[2])] : [match[1]!, Number(match[2]), Number(match[3])];
  return { type, post, from: new Date(window * WINDOW_MS), to: new Date((window + 1) * WINDOW_MS) };
}

/** Notifications read at most for one page of groups, by their keys (a flood of one group — 10,000
 * reactions on one post — answers with a group of these, and its Link goes on past them), and
 * past the page to count its groups' older notifications. */
export const MAX_GROUPED_ROWS = 800;
export const MAX_COUNTED_PAST_PAGE = 800;
/** Notifications read whole at most for one page: its groups' first ones (to map), and those
 * left out for a post that is gone. Past it, the page ends and its Link goes on from there. */
export const MAX_WHOLE_ROWS = 160;
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
  /** Distinct actors' ids, in the page's order, then older ones' (newest first). */
  actors: number[];
  olderActors: number[];
  /** When its window starts (ms); null: a group of one. */
  since: number | null;
}

/** How many sample accounts a group names (as Mastodon's). */
export const SAMPLE_ACCOUNTS = 8;

/**
 * One page of notification groups, at most `limit` of them, walked by their keys newest first
 * (oldest first above min_id: `climbing`) in batches until the next row would start one group too
 * many, the rows run out, MAX_GROUPED_ROWS are read or MAX_WHOLE_ROWS read whole. Only a group's
 * first notification is read whole (to map it; its post may be gone): a flood of padded reactions
 * costs its keys, not its documents. A group's page_min_id and page_max_id are its notifications
 * within the page; as Mastodon's (NotificationGroup.load_groups_data: up to the page's newest, no
 * lower bound), its notifications_count and sample accounts also take its older notifications —
 * past the page, and past since_id or min_id, which a poll gives: a client replaces the group it
 * holds with the one polled, so a count of the page's alone shrank it — read by their keys down to
 * its window's start, at most MAX_COUNTED_PAST_PAGE rows (a flood counts what these rows hold).
 * `next` and `prev`: the ids the Link header goes on from (the page's rows end there, whatever of
 * them was left out).
 */
export function groupedPage<M extends Mapped>(input: {
  limit: number;
  climbing: boolean;
  /** The page's lower bound (since_id or min_id), if any. */
  after: number | null;
  /** At most `limit` keys past `cursor` (null: from the page's bound), newest first as
   * NotificationService.rangeKeys gives them. */
  readKeys: (cursor: NotificationKey | null, limit: number) => NotificationKey[];
  /** At most `limit` keys older than `before`, newest first, whatever the page's bounds. */
  readOlderKeys: (before: number, limit: number) => NotificationKey[];
  /** A notification read whole (NotificationService.get). */
  whole: (id: number) => NotificationItem | null;
  /** Its Mastodon type, or null when it is not asked for. */
  typeOf: (item: NotificationKey) => string | null;
  groupable: readonly string[];
  map: (item: NotificationItem) => M | null;
  account: (actor: Actor) => M['account'];
  /** The actors of these ids (sample accounts). */
  actorsOf: (ids: number[]) => Map<number, Actor>;
  accountId?: string | undefined;
}) {
  const groups = new Map<string, Group<M>>();
  const unlisted = new Set<string>();
  const consumed: number[] = [];
  const keyOf = (item: NotificationKey, type: string | null) =>
    type !== null && (input.accountId === undefined || String(item.actorId ?? 0) === input.accountId) ? groupKeyOf(item, type, input.groupable) : null;

  // The page, by its keys.
  let cursor: NotificationKey | null = null;
  let wholeReads = 0;
  /** Read past the page (descending): where the older rows start, and those already read. */
  let past: { before: number; rows: NotificationKey[] } | null = null;
  reading: while (consumed.length < MAX_GROUPED_ROWS) {
    const want = Math.min(BATCH, MAX_GROUPED_ROWS - consumed.length);
    const batch = input.readKeys(cursor, want);
    // In the page's order: down from the top, or up from min_id.
    const rows = input.climbing ? [...batch].reverse() : batch;
    for (const [i, row] of rows.entries()) {
      const key = keyOf(row, input.typeOf(row));
      let group = key === null ? undefined : groups.get(key);
      if (key !== null && !group && !unlisted.has(key) && (groups.size >= input.limit || wholeReads >= MAX_WHOLE_ROWS)) {
        // This row starts the next page; the rest of the batch is older (climbing: newer).
        past = input.climbing ? null : { before: batch.at(-1)!.id, rows: rows.slice(i) };
        break reading;
      }
      consumed.push(row.id);
      if (key === null) continue;
      if (!group) {
        if (unlisted.has(key)) continue;
        wholeReads++;
        const item = input.whole(row.id);
        const shown = item && input.map(item);
        // Its post is gone, or no account stands behind it: not listed, as in v1 (nor the rest of
        // its group, which is about the same post: not read again).
        if (!shown || (input.accountId !== undefined && shown.account.id !== input.accountId)) {
          if (!key.startsWith('ungrouped-')) unlisted.add(key);
          continue;
        }
        const since = key.startsWith('ungrouped-') ? null : Math.floor(Date.parse(row.createdAt) / WINDOW_MS) * WINDOW_MS;
        groups.set(key, (group = { key, shown, ids: [], older: 0, newest: { id: row.id, at: row.createdAt }, actors: [], olderActors: [], since }));
      }
      group.ids.push(row.id);
      if (row.id > group.newest.id) group.newest = { id: row.id, at: row.createdAt };
      if (row.actorId !== null && !group.actors.includes(row.actorId)) group.actors.push(row.actorId);
    }
    if (batch.length < want) {
      // The rows ran out at the page's bound: what is older lies past since_id or min_id.
      if (input.after !== null) past = { before: input.after + 1, rows: [] };
      break;
    }
    cursor = input.climbing ? batch[0]! : batch.at(-1)!;
    if (consumed.length >= MAX_GROUPED_ROWS && !input.climbing) past = { before: cursor.id, rows: [] };
  }
  // Climbing, the page's older rows are those at and below min_id, however it ended.
  if (input.climbing && input.after !== null) past = { before: input.after + 1, rows: [] };

  // Past the page: its groups' older notifications, counted by their keys down to the oldest
  // group's window start.
  const starts = [...groups.values()].map((g) => g.since).filter((t): t is number => t !== null);
  if (past !== null && starts.length > 0) {
    const floor = Math.min(...starts);
    let { before, rows } = past;
    counting: for (let read = 0; ; ) {
      for (const row of rows) {
        if (Date.parse(row.createdAt) < floor) break counting;
        const key = keyOf(row, input.typeOf(row));
        const group = key === null ? undefined : groups.get(key);
        if (!group) continue;
        group.older++;
        if (row.actorId !== null && !group.actors.includes(row.actorId) && !group.olderActors.includes(row.actorId)) group.olderActors.push(row.actorId);
      }
      const want = Math.min(BATCH * 2, MAX_COUNTED_PAST_PAGE - read);
      if (want <= 0) break;
      rows = input.readOlderKeys(before, want);
      read += rows.length;
      if (rows.length === 0) break;
      before = rows.at(-1)!.id;
    }
  }

  // Newest first (read climbing, the page's last read are its newest), then the older ones.
  const sampleOf = (g: Group<M>) => [...(input.climbing ? [...g.actors].reverse() : g.actors), ...g.olderActors].slice(0, SAMPLE_ACCOUNTS);
  const actors = input.actorsOf([...new Set([...groups.values()].flatMap(sampleOf))]);
  const accounts = new Map<string, M['account']>();
  const notificationGroups = [...groups.values()]
    .sort((a, b) => b.newest.id - a.newest.id)
    .map((g) => {
      // An ended poll of the author's own has no actor: its account is the author's.
      const found = sampleOf(g).flatMap((id) => actors.get(id) ?? []);
      const sample = found.length > 0 ? found.map(input.account) : [g.shown.account];
      for (const a of sample) accounts.set(a.id, a);
      return groupEntity({ key: g.key, shown: g.shown, count: g.ids.length + g.older, newest: g.newest, ids: g.ids, sample });
    });
  const [low, high] = consumed.length === 0 ? [undefined, undefined] : [String(Math.min(...consumed)), String(Math.max(...consumed))];
  return { notificationGroups, shown: [...groups.values()].map((g) => g.shown), accounts: [...accounts.values()], next: low, prev: high };
}

/** A NotificationGroup entity (Mastodon 4.3): `ids`, its notifications in the page. */
export function groupEntity<M extends Mapped>(g: { key: string; shown: M; count: number; newest: { id: number; at: string }; ids: number[]; sample: M['account'][] }) {
  return {
    group_key: g.key,
    notifications_count: g.count,
    type: g.shown.type,
    most_recent_notification_id: String(g.newest.id),
    page_min_id: String(Math.min(...g.ids)),
    page_max_id: String(Math.max(...g.ids)),
    latest_page_notification_at: new Date(g.newest.at).toISOString(),
    sample_account_ids: g.sample.map((a) => a.id),
    ...(g.shown.status ? { status_id: g.shown.status.id } : {}),
    ...(g.shown.emoji !== undefined ? { emoji: g.shown.emoji } : {}),
    ...(g.shown.emoji_url !== undefined ? { emoji_url: g.shown.emoji_url } : {}),
  };
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

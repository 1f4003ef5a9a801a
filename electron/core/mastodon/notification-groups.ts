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
import type { NotificationItem } from '../notifications/service';
import { REACTION_NOTIFICATION } from './notification-types';

/** The Mastodon types Tern groups (unless grouped_types[] leaves some out). */
export const GROUPABLE_TYPES: readonly string[] = ['favourite', 'reblog', 'follow', REACTION_NOTIFICATION];

const WINDOW_MS = 12 * 60 * 60 * 1000;

/** A notification's group key, given its Mastodon type; `ungrouped-{id}` (the form Mastodon's
 * documentation lets clients assume) for a type not grouped. */
export function groupKeyOf(item: NotificationItem, type: string, groupable: readonly string[] = GROUPABLE_TYPES): string {
  const ungrouped = `ungrouped-${item.id}`;
  if (!groupable.includes(type) || !item.actor) return ungrouped;
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

/**
 * One page of notification groups, at most `limit` of them, read newest first (oldest first above
 * min_id: `climbing`) in batches until the next row would start one group too many, the rows run
 * out or MAX_GROUPED_ROWS are read. A group's page_min_id and page_max_id are its notifications
 * within the page; as Mastodon's, its notifications_count and sample accounts also take its older
 * notifications, read past the page (down to its window's start, at most MAX_COUNTED_PAST_PAGE
 * rows: a flood counts what these rows hold). Climbing, nothing older is read: a group counts the
 * notifications of its key in the page. `next` and `prev`: the ids the Link header goes on from
 * (the page's rows end there, whatever of them was left out).
 */
export function groupedPage<M extends Mapped>(input: {
  limit: number;
  climbing: boolean;
  /** At most `limit` rows past `cursor` (null: from the page's bound), newest first as
   * NotificationService.range gives them. */
  read: (cursor: NotificationItem | null, limit: number) => NotificationItem[];
  /** Its Mastodon type, or null when it is not asked for. */
  typeOf: (item: NotificationItem) => string | null;
  groupable: readonly string[];
  map: (item: NotificationItem) => M | null;
  account: (actor: Actor) => M['account'];
  accountId?: string | undefined;
}) {
  const groups = new Map<string, Group<M>>();
  const unlisted = new Set<string>();
  const consumed: number[] = [];
  let cursor: NotificationItem | null = null;
  // Past the page: only counting its groups' older notifications, back to `floor` (ms).
  let counting = false;
  let floor = Number.POSITIVE_INFINITY;
  const startCounting = () => {
    counting = true;
    const starts = [...groups.values()].map((g) => g.since).filter((t): t is number => t !== null);
    floor = starts.length === 0 ? Number.POSITIVE_INFINITY : Math.min(...starts);
  };
  let read = 0;
  reading: for (;;) {
    const cap = counting ? MAX_GROUPED_ROWS + MAX_COUNTED_PAST_PAGE : MAX_GROUPED_ROWS;
    const want = Math.min(BATCH, cap - read);
    if (want <= 0 || (counting && floor === Number.POSITIVE_INFINITY)) break;
    const batch = input.read(cursor, want);
    read += batch.length;
    // In the page's order: down from the top, or up from min_id.
    for (const item of input.climbing ? [...batch].reverse() : batch) {
      const type = input.typeOf(item);
      const wanted = type !== null && (input.accountId === undefined || String(item.actor?.id ?? 0) === input.accountId);
      const key = wanted ? groupKeyOf(item, type, input.groupable) : null;
      let group = key === null ? undefined : groups.get(key);
      if (!counting && key !== null && !group && groups.size >= input.limit) {
        // This row starts the next page.
        if (input.climbing) break reading;
        startCounting();
      }
      if (counting) {
        if (Date.parse(item.createdAt) < floor) break reading;
        if (group) {
          group.older++;
          if (item.actor && group.actors.length < SAMPLE_ACCOUNTS && !group.actors.some((a) => a.id === item.actor!.id)) group.actors.push(item.actor);
        }
        continue;
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
    // The page's rows are read: its groups' older notifications are counted on.
    if (!counting && read >= MAX_GROUPED_ROWS) {
      if (input.climbing) break;
      startCounting();
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

/** How many groups the notifications `read` gives (newest first, in batches past `cursor`) make,
 * of those `keep` keeps, at most `limit`: Mastodon 4.3's unread_count of groups. Not mapped: a
 * group counts as v1's unread_count counts its notifications, whether its post is still there or
 * not. */
export function countGroups(input: {
  limit: number;
  read: (cursor: NotificationItem | null, limit: number) => NotificationItem[];
  typeOf: (item: NotificationItem) => string | null;
  keep: (item: NotificationItem) => boolean;
  groupable: readonly string[];
}): number {
  const keys = new Set<string>();
  let cursor: NotificationItem | null = null;
  for (let read = 0; read < MAX_COUNTED_ROWS && keys.size < input.limit; ) {
    const want = Math.min(BATCH, MAX_COUNTED_ROWS - read);
    const batch = input.read(cursor, want);
    for (const item of batch) {
      const type = input.typeOf(item);
      if (type !== null && input.keep(item)) keys.add(groupKeyOf(item, type, input.groupable));
      if (keys.size >= input.limit) break;
    }
    read += batch.length;
    if (batch.length < want) break;
    cursor = batch.at(-1)!;
  }
  return Math.min(keys.size, Math.max(0, input.limit));
}

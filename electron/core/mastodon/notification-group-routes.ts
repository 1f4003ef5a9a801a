// One notification group by its key (Mastodon 4.3, Api::V2::NotificationsController#show and
// #dismiss, Api::V2::Notifications::AccountsController): the group as the grouped list gives it,
// the accounts of its notifications a page at a time, and its dismissal. Tern stores no group key
// (notification-groups.ts): the key is parsed back into its type, post and 12-hour window, the
// rows of that type, post and window are read by their keys, and a row is of the group when its
// own key is the one asked for. A reaction key holds %XX (the emoji, URL-encoded) and Hono decodes
// a path's parameters: the key is taken as sent, or as a client that did not encode it sent it.
import type { Hono } from 'hono';
import { z } from 'zod';
import type { ListenerCore, ListenerEnv } from '../listener/context';
import type { NotificationKey, NotificationService } from '../notifications/service';
import { apiOf } from './api';
import { groupEntity, groupKeyOf, partsOfGroupKey, SAMPLE_ACCOUNTS, type GroupKeyParts } from './notification-groups';
import { mastodonTypeOf, specTypesFor } from './notification-types';
import { ApiError, bodyParams, handler, idString, json, limitParam, linkHeader, notFound, parse, queryParams, requireToken } from './http';

/** A group's rows read at most for one answer of GET (its count stops there, as the grouped list's
 * does for a flood) and of one page of its accounts; a dismissal reads on in batches, letting
 * other work run between them. */
export const MAX_GROUP_ROWS_READ = 2000;
const BATCH = 200;

const accountsQuery = z.object({ max_id: idString.optional(), since_id: idString.optional(), min_id: idString.optional(), limit: limitParam(40, 80) });

const safeDecode = (text: string) => {
  try {
    return decodeURIComponent(text);
  } catch {
    return null;
  }
};

type Grouped = Extract<GroupKeyParts, { type: string }>;

/**
 * The rows of a group, newest first, older than `before` and newer than `after`: at most `want`
 * of them, reading at most `budget` rows of its type, post and window. `next`: where to go on from
 * when the budget ran out first (null: all read).
 */
function groupRows(service: NotificationService, parts: Grouped, isKey: (key: string) => boolean, bounds: { before: number | null; after: number | null; want: number; budget: number }) {
  const types = specTypesFor([parts.type]);
  const rows: NotificationKey[] = [];
  let before = bounds.before;
  for (let read = 0; rows.length < bounds.want; ) {
    if (read >= bounds.budget) return { rows, next: before };
    const limit = Math.min(BATCH, bounds.budget - read);
    const batch = service.rangeKeys({ before, after: bounds.after, limit, types, createdWithin: { from: parts.from, to: parts.to }, ...(parts.post === null ? {} : { outboxObjectId: parts.post }) });
    read += batch.length;
    for (const row of batch) {
      const type = mastodonTypeOf(row);
      if (type === parts.type && isKey(groupKeyOf(row, type))) rows.push(row);
      if (rows.length >= bounds.want) return { rows, next: null };
    }
    if (batch.length < limit) break;
    before = batch.at(-1)!.id;
  }
  return { rows, next: null };
}

/** The notifications service, or 503 while the core has none (both notification route files). */
export function notificationServiceOf(core: ListenerCore): NotificationService {
  const notifications = core.services?.notifications;
  if (!notifications) throw new ApiError(503, 'Notifications are not available on this Tern');
  return notifications;
}

export function mountNotificationGroupRoutes(app: Hono<ListenerEnv>, core: ListenerCore): void {
  const service = () => notificationServiceOf(core);
  /** The key asked for, its parts, and whether a key groupKeyOf gave is it. */
  const keyOf = (param: string | undefined) => {
    const sent = param ?? '';
    const isKey = (key: string) => key === sent || safeDecode(key) === sent;
    return { parts: partsOfGroupKey(sent), isKey };
  };

  app.get(
    '/api/v2/notifications/:group_key',
    handler((c) => {
      requireToken(core, c, 'read');
      const api = apiOf(core, c);
      const { parts, isKey } = keyOf(c.req.param('group_key'));
      if (!parts) throw notFound();
      let group;
      if ('notification' in parts) {
        const item = service().get(parts.notification);
        const shown = item && mastodonTypeOf(item) !== null ? api.map.notification(item) : null;
        if (!item || !shown) throw notFound();
        group = { key: `ungrouped-${item.id}`, shown, count: 1, newest: { id: item.id, at: item.createdAt }, ids: [item.id], sample: [shown.account] };
      } else {
        // Its newest rows, as many as one answer reads: its count, its sample accounts.
        const { rows } = groupRows(service(), parts, isKey, { before: null, after: null, want: MAX_GROUP_ROWS_READ, budget: MAX_GROUP_ROWS_READ });
        const newest = rows[0];
        const item = newest ? service().get(newest.id) : null;
        const shown = item ? api.map.notification(item) : null;
        if (!newest || !item || !shown) throw notFound();
        const actorIds = [...new Set(rows.flatMap((r) => (r.actorId === null ? [] : [r.actorId])))].slice(0, SAMPLE_ACCOUNTS);
        const actors = service().actorsOf(actorIds);
        const found = actorIds.flatMap((id) => actors.get(id) ?? []).map((a) => api.map.account(a));
        const ids = rows.map((r) => r.id);
        group = { key: groupKeyOf(newest, parts.type), shown, count: rows.length, newest: { id: newest.id, at: newest.createdAt }, ids, sample: found.length > 0 ? found : [shown.account] };
      }
      return json(c, { accounts: group.sample, statuses: group.shown.status ? [group.shown.status] : [], notification_groups: [groupEntity(group)] });
    }),
  );

  // The account of each of its notifications, newest first, paged by their ids as Mastodon's
  // (max_id, since_id; min_id as since_id); a key of no notification: none. Text that is no
  // group key at all (no key Tern gives has its shape): 404, as for the group itself.
  app.get(
    '/api/v2/notifications/:group_key/accounts',
    handler((c) => {
      requireToken(core, c, 'read');
      const api = apiOf(core, c);
      const q = parse(accountsQuery, queryParams(c));
      const { parts, isKey } = keyOf(c.req.param('group_key'));
      if (!parts) throw notFound();
      const num = (v: string | undefined) => (v === undefined ? null : Number(v.slice(0, 15)));
      const bounds = { before: num(q.max_id), after: num(q.since_id ?? q.min_id) };
      let rows: { id: number }[] = [];
      let next: number | null = null;
      let accounts: { id: string }[] = [];
      if (parts && 'notification' in parts) {
        // A group of one: its account, an ended poll of the author's own the author's (as listed).
        const item = service().get(parts.notification);
        const shown = item && mastodonTypeOf(item) !== null && (bounds.before === null || item.id < bounds.before) && (bounds.after === null || item.id > bounds.after) ? api.map.notification(item) : null;
        if (item && shown) [rows, accounts] = [[item], [shown.account]];
      } else {
        const found = groupRows(service(), parts, isKey, { ...bounds, want: q.limit, budget: MAX_GROUP_ROWS_READ });
        [rows, next] = [found.rows, found.next];
        const actors = service().actorsOf(found.rows.flatMap((r) => (r.actorId === null ? [] : [r.actorId])));
        accounts = found.rows.flatMap((r) => (r.actorId === null ? [] : (actors.get(r.actorId) ?? []))).map((a) => api.map.account(a));
      }
      const ids = rows.map((r) => String(r.id));
      return json(c, accounts, 200, linkHeader(c, c.var.local, ids, next === null ? {} : { next: String(next) }));
    }),
  );

  // Every notification of the group, in batches of their keys (a group of 100,000 rows is never
  // read whole), the thread let go between them; {} for any key of a group's shape, as
  // Mastodon's (a group already dismissed, or never there); text of no key's shape: 404.
  app.post(
    '/api/v2/notifications/:group_key/dismiss',
    handler(async (c) => {
      requireToken(core, c, 'write');
      await bodyParams(c);
      const { parts, isKey } = keyOf(c.req.param('group_key'));
      if (!parts) throw notFound();
      if ('notification' in parts) service().dismiss(parts.notification);
      else {
        for (let before: number | null = null; ; ) {
          const { rows, next } = groupRows(service(), parts, isKey, { before, after: null, want: BATCH, budget: BATCH });
          service().dismissAll(rows.map((r) => r.id));
          before = next ?? (rows.length === BATCH ? rows.at(-1)!.id : null);
          if (before === null) break;
          await new Promise((resolve) => setImmediate(resolve));
        }
      }
      return json(c, {});
    }),
  );
}

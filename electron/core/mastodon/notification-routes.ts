// Notifications, Mastodon's way: newest first by id with max_id/since_id/min_id pages, the
// notifications Mastodon has a type for (notification-types.ts: follow, favourite, reblog,
// mention, poll, and Pleroma's pleroma:emoji_reaction; the others are not listed), grouped as
// Mastodon 4.3 groups them (notification-groups.ts), one by id, dismiss and clear (which remove
// them in the desktop app too).
import type { Hono } from 'hono';
import { z } from 'zod';
import type { ListenerCore, ListenerEnv } from '../listener/context';
import { apiOf } from './api';
import { mountNotificationGroupRoutes, notificationServiceOf } from './notification-group-routes';
import { countGroups, GROUPABLE_TYPES, groupedPage } from './notification-groups';
import { countedTypesFor, MASTODON_NOTIFICATION_TYPES, mastodonTypeOf, specTypesFor } from './notification-types';
import { bodyParams, filteredPage, handler, json, limitParam, linkHeader, list, notFound, pageQuery, parse, queryParams, requireToken } from './http';
import type { NotificationItem } from '../notifications/service';
import { OWN_ACCOUNT_ID } from './ids';

const mastodonType = z.string().max(40);
const listQuery = pageQuery.extend({ types: list(mastodonType, 20).optional(), exclude_types: list(mastodonType, 20).optional(), account_id: z.string().max(30).optional() });
// Mastodon 4.3's grouped list: grouped_types[] names the types a client can show grouped;
// expand_accounts and include_filtered are read and ignored (every account is given in full;
// Tern filters nothing). `limit` counts groups: 40 unless told, at most 80, as Mastodon's.
const groupedQuery = listQuery.extend({
  grouped_types: list(mastodonType, 20).optional(),
  expand_accounts: z.string().max(20).optional(),
  include_filtered: z.string().max(10).optional(),
  limit: limitParam(40, 80),
});
const countQuery = z.object({ types: list(mastodonType, 20).optional(), exclude_types: list(mastodonType, 20).optional(), limit: limitParam(100, 1000) });
const groupedCountQuery = countQuery.extend({ grouped_types: list(mastodonType, 20).optional(), account_id: z.string().max(30).optional() });

export function mountNotificationRoutes(app: Hono<ListenerEnv>, core: ListenerCore): void {
  const service = () => notificationServiceOf(core);
  const idOf = (value: string | undefined) => {
    if (!value || !/^\d{1,15}$/.test(value)) throw notFound();
    return Number(value);
  };

  /** The Mastodon types asked for (types[], exclude_types[]) of those this API lists. */
  const wantedOf = (q: { types?: string[] | undefined; exclude_types?: string[] | undefined }) =>
    MASTODON_NOTIFICATION_TYPES.filter((t) => (!q.types || q.types.includes(t)) && !(q.exclude_types ?? []).includes(t));

  /** The notifications account_id asks for, by their actor (notifications.actor_id): an
   * account id is an actor row id, the author's ("0") the ended polls of the author's own,
   * which have none (entities.ts notification); any other id names no account. */
  const actorOf = (accountId: string | undefined): { actorId?: number | null } | null => {
    if (accountId === undefined) return {};
    if (accountId === OWN_ACCOUNT_ID) return { actorId: null };
    return /^[1-9]\d{0,14}$/.test(accountId) ? { actorId: Number(accountId) } : null;
  };

  /** The types grouped_types[] lets group (all Tern groups when it is not given). */
  const groupableOf = (q: { grouped_types?: string[] | undefined }) => (q.grouped_types ? GROUPABLE_TYPES.filter((t) => q.grouped_types!.includes(t)) : GROUPABLE_TYPES);

  /** One page of Mastodon notifications (rows whose post is gone map to nothing: read on). */
  const pageOf = (c: Parameters<Parameters<typeof handler>[0]>[0]) => {
    const api = apiOf(core, c);
    const q = parse(listQuery, queryParams(c));
    const wanted = wantedOf(q);
    const types = specTypesFor(wanted);
    const num = (v: string | undefined) => (v === undefined ? null : Number(v.slice(0, 15)));
    const climbing = q.min_id !== undefined;
    const bound = { before: num(q.max_id), after: num(q.min_id ?? q.since_id) };
    const stopped: { at: NotificationItem | null } = { at: null };
    // account_id is read in SQL, with the types: the rows of other accounts are not read. They
    // were read, each built into its entity (status, account) and then dropped, up to five
    // batches of `limit`: 400 entities for the empty page of an account with none, 110–180 ms
    // over 50,000 notifications, 204–252 ms over 200,000 (the audit,
    // test/hostile/audit-notifications-account.test.ts).
    const actor = actorOf(q.account_id);
    const page =
      wanted.length === 0 || actor === null
        ? []
        : filteredPage({
            limit: q.limit,
            climbing,
            read: (cursor: NotificationItem | null) =>
              service().range({ ...bound, ...(cursor === null ? {} : climbing ? { after: cursor.id } : { before: cursor.id }), closestToAfter: climbing, limit: q.limit, types, ...actor }),
            // Filtered by type before mapping: a run of notifications of a kind not asked for (a
            // flood of reactions under types[]=favourite) costs no status to build.
            keep: (items) =>
              items
                .filter((n) => wanted.includes(mastodonTypeOf(n) ?? ''))
                .map((n) => api.map.notification(n))
                .filter((n): n is NonNullable<typeof n> => n !== null && (!q.account_id || n.account.id === q.account_id)),
            stoppedAt: (cursor) => (stopped.at = cursor),
          });
    const past = stopped.at === null ? {} : climbing ? { prev: String(stopped.at.id) } : { next: String(stopped.at.id) };
    return { page, headers: linkHeader(c, c.var.local, page.map((n) => n.id), past) };
  };

  app.get(
    '/api/v1/notifications',
    handler((c) => {
      requireToken(core, c, 'read');
      const { page, headers } = pageOf(c);
      return json(c, page, 200, headers);
    }),
  );

  // Grouped notifications (Mastodon 4.3): notification-groups.ts. `limit` counts groups; the
  // Link header goes on from the rows the page read.
  app.get(
    '/api/v2/notifications',
    handler((c) => {
      requireToken(core, c, 'read');
      const api = apiOf(core, c);
      const q = parse(groupedQuery, queryParams(c));
      const wanted = wantedOf(q);
      const types = specTypesFor(wanted);
      const num = (v: string | undefined) => (v === undefined ? null : Number(v.slice(0, 15)));
      const climbing = q.min_id !== undefined;
      const bound = { before: num(q.max_id), after: num(q.min_id ?? q.since_id) };
      const page = groupedPage({
        limit: wanted.length === 0 ? 0 : q.limit,
        climbing,
        after: bound.after,
        readKeys: (cursor, limit) =>
          wanted.length === 0 || limit <= 0 ? [] : service().rangeKeys({ ...bound, ...(cursor === null ? {} : climbing ? { after: cursor.id } : { before: cursor.id }), closestToAfter: climbing, limit, types }),
        readOlderKeys: (before, limit) => service().rangeKeys({ before, limit, types }),
        whole: (id) => service().get(id),
        typeOf: (n) => {
          const type = mastodonTypeOf(n);
          return type !== null && wanted.includes(type) ? type : null;
        },
        groupable: groupableOf(q),
        map: (n) => api.map.notification(n),
        account: (actor) => api.map.account(actor),
        actorsOf: (ids) => service().actorsOf(ids),
        accountId: q.account_id,
      });
      const statuses = new Map(page.shown.filter((n) => n.status).map((n) => [n.status!.id, n.status!]));
      const bounds = { ...(page.next === undefined ? {} : { next: page.next }), ...(page.prev === undefined ? {} : { prev: page.prev }) };
      return json(c, { accounts: page.accounts, statuses: [...statuses.values()], notification_groups: page.notificationGroups }, 200, linkHeader(c, c.var.local, [], bounds));
    }),
  );

  // Mastodon's unread count: the notifications it would list (of these types) newer than the
  // notifications marker the app saved, at most `limit` (default 100, at most 1000). Without a
  // marker, the ones the desktop has not shown as read. It once counted every unread row of any
  // type, also those the API never lists (an undone like, an unfollow), and ignored the marker.
  const markerAfter = () => {
    const marker = core.settings.get().mastodonMarkers.notifications?.lastReadId;
    return marker === undefined ? null : Number(marker.slice(0, 15));
  };
  app.get(
    '/api/v1/notifications/unread_count',
    handler((c) => {
      requireToken(core, c, 'read');
      const q = parse(countQuery, queryParams(c));
      return json(c, { count: service().countNewer({ after: markerAfter(), ...countedTypesFor(wantedOf(q)), limit: q.limit }) });
    }),
  );

  // Mastodon 4.3's counts groups (notification-groups.ts): three reactions of one emoji to one post
  // are one, as the grouped list shows them; grouped_types[] and account_id as there.
  app.get(
    '/api/v2/notifications/unread_count',
    handler((c) => {
      requireToken(core, c, 'read');
      const q = parse(groupedCountQuery, queryParams(c));
      const wanted = wantedOf(q);
      const types = specTypesFor(wanted);
      const after = markerAfter();
      const count =
        wanted.length === 0
          ? 0
          : countGroups({
              limit: q.limit,
              read: (before, limit) => service().rangeKeys({ after, before, limit, types }),
              typeOf: (n) => {
                const type = mastodonTypeOf(n);
                return type !== null && wanted.includes(type) ? type : null;
              },
              // Without a marker, the unread ones; an ended poll of the author's own has no actor.
              keep: (n) => (after !== null || n.isNew) && (q.account_id === undefined || String(n.actorId ?? 0) === q.account_id),
              groupable: groupableOf(q),
            });
      return json(c, { count });
    }),
  );

  app.post(
    '/api/v1/notifications/clear',
    handler(async (c) => {
      requireToken(core, c, 'write');
      await bodyParams(c);
      await service().clear();
      return json(c, {});
    }),
  );

  app.get(
    '/api/v1/notifications/:id',
    handler((c) => {
      requireToken(core, c, 'read');
      const item = service().get(idOf(c.req.param('id')));
      const mapped = item ? apiOf(core, c).map.notification(item) : null;
      if (!mapped) throw notFound();
      return json(c, mapped);
    }),
  );

  for (const path of ['/api/v1/notifications/:id/dismiss', '/api/v1/notifications/dismiss']) {
    app.post(
      path,
      handler(async (c) => {
        requireToken(core, c, 'write');
        const params = await bodyParams(c);
        const id = idOf(c.req.param('id') ?? (typeof params.id === 'string' ? params.id : undefined));
        if (!service().dismiss(id)) throw notFound();
        return json(c, {});
      }),
    );
  }

  // After unread_count: /api/v2/notifications/unread_count is no group key.
  mountNotificationGroupRoutes(app, core);
}

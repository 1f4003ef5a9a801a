// Accounts: the author's own (verify_credentials), others by id or address, their posts,
// followers and following, relationships, following and unfollowing, search, follow requests.
// Tern keeps only the author's social graph, so another account's followers and following are
// empty, and counts Tern does not know are 0.
import type { Hono } from 'hono';
import { z } from 'zod';
import type { ActorView } from '../ipc/author-contract';
import type { ListenerCore, ListenerEnv } from '../listener/context';
import { apiOf, collect, statusPage, type Api } from './api';
import { ApiError, bodyParams, bool, handler, idString, json, limitParam, linkHeader, list, notFound, pageQuery, parse, queryParams, requireToken, type PageQuery } from './http';
import { OWN_ACCOUNT_ID } from './ids';
import type { KeyRange } from '../federation/actions/reads';
import { actorView } from '../federation/actions/views';
import { countPendingFollowRequests, pendingFollowRequestFrom, pendingFollowRequestsPage } from '../federation/follow-requests';
import { MAX_IMAGE_BYTES } from '../media/limits';
import { UploadedFile } from '../media/uploaded-file';
import { declaredType } from '../micropub/media';
import { settingsUpdateSchema } from '../settings';
import { createSettingsService } from '../settings-service';

/** The account an id names: the author ("0") or a stored actor. */
export function actorById(api: Api, id: string): ActorView {
  if (!/^\d{1,15}$/.test(id)) throw notFound();
  if (id === OWN_ACCOUNT_ID) {
    const own = api.map.ownAccount();
    return { id: 0, apId: own.uri, name: own.display_name, handle: null, iconUrl: null, url: own.url };
  }
  const row = api.author.reads.actor(Number(id));
  if (!row) throw notFound();
  return actorView(row);
}

const viewOf = actorById;

export const PROFILE_BODY_BYTES = 2 * MAX_IMAGE_BYTES + 64 * 1024;
const credentialsInput = z.object({
  display_name: z.string().max(100).optional(),
  note: z.string().max(5000).optional(),
  locked: bool.optional(),
  avatar: z.instanceof(UploadedFile).optional(),
  header: z.instanceof(UploadedFile).optional(),
  bot: bool.optional(),
  discoverable: bool.optional(),
  source: z.unknown().optional(),
  fields_attributes: z.unknown().optional(),
});

const statusesQuery = pageQuery.extend({
  pinned: bool.optional(),
  exclude_reblogs: bool.optional(),
  exclude_replies: bool.optional(),
  only_media: bool.optional(),
  tagged: z.string().max(100).optional(),
});

export function mountAccountRoutes(app: Hono<ListenerEnv>, core: ListenerCore): void {
  app.get(
    '/api/v1/accounts/verify_credentials',
    handler((c) => {
      requireToken(core, c, 'read', 'profile');
      const api = apiOf(core, c);
      const settings = core.settings.get();
      const own = api.map.ownAccount({ withPrivate: true });
      return json(c, {
        ...own,
        source: { privacy: 'public', sensitive: false, language: null, note: settings.summary, fields: [], follow_requests_count: countPendingFollowRequests(core.db) },
      });
    }),
  );

  // The same settings service as Settings → Profile: saving sends followers the actor Update.
  app.patch(
    '/api/v1/accounts/update_credentials',
    handler(async (c) => {
      requireToken(core, c, 'write');
      const input = parse(credentialsInput, await bodyParams(c, PROFILE_BODY_BYTES, true));
      const upload = async (file: UploadedFile | undefined) => {
        if (!file) return undefined;
        const media = core.services?.media;
        if (!media) throw new ApiError(503, 'Uploads are not available on this Tern');
        return (await media.store({ file: file.pieces, contentType: declaredType(file) })).upload.id;
      };
      const change = parse(settingsUpdateSchema, {
        ...(input.display_name !== undefined ? { displayName: input.display_name } : {}),
        ...(input.note !== undefined ? { summary: input.note } : {}),
        ...(input.locked !== undefined ? { manuallyApprovesFollowers: input.locked } : {}),
        ...(input.avatar ? { avatar: await upload(input.avatar) } : {}),
        ...(input.header ? { header: await upload(input.header) } : {}),
      });
      await createSettingsService(core).update(change);
      const api = apiOf(core, c);
      const settings = core.settings.get();
      return json(c, { ...api.map.ownAccount({ withPrivate: true }), source: { privacy: 'public', sensitive: false, language: null, note: settings.summary, fields: [], follow_requests_count: countPendingFollowRequests(core.db) } });
    }),
  );

  app.get(
    '/api/v1/accounts/lookup',
    handler(async (c) => {
      requireToken(core, c, 'read');
      const api = apiOf(core, c);
      const { acct } = parse(z.object({ acct: z.string().trim().min(1).max(300) }), queryParams(c));
      const name = acct.replace(/^@/, '');
      const local = c.var.local;
      if (name === local.username || name === `${local.username}@${local.host}`) return json(c, api.map.ownAccount());
      const found = await api.author.lookup(name.includes('@') ? `@${name}` : name);
      if (found.kind !== 'actor') throw notFound();
      return json(c, api.map.account(found.actor));
    }),
  );

  app.get(
    '/api/v1/accounts/relationships',
    handler((c) => {
      requireToken(core, c, 'read', 'follow');
      const api = apiOf(core, c);
      const q = parse(z.object({ id: list(idString, 40).default([]) }), queryParams(c));
      return json(c, q.id.flatMap((id) => {
        try {
          return [api.map.relationship(viewOf(api, id))];
        } catch {
          return [];
        }
      }));
    }),
  );

  app.get(
    '/api/v1/accounts/search',
    handler(async (c) => {
      requireToken(core, c, 'read');
      const api = apiOf(core, c);
      const q = parse(z.object({ q: z.string().trim().min(1).max(300), resolve: bool.optional(), limit: limitParam(40, 80) }), queryParams(c));
      return json(c, await searchAccounts(api, q.q, q.resolve ?? false, q.limit));
    }),
  );

  app.get(
    '/api/v1/accounts/:id',
    handler((c) => {
      const api = apiOf(core, c);
      // Mastodon's profile scope is verify_credentials only; another account needs read.
      requireToken(core, c, 'read');
      return json(c, api.map.account(viewOf(api, c.req.param('id') ?? '')));
    }),
  );

  app.get(
    '/api/v1/accounts/:id/statuses',
    handler((c) => {
      requireToken(core, c, 'read');
      const api = apiOf(core, c);
      const who = actorById(api, c.req.param('id') ?? '');
      const q = parse(statusesQuery, queryParams(c));
      const read = (range: KeyRange) =>
        who.id === 0 ? api.author.reads.ownPosts(range, { pinned: q.pinned ?? false, withBoosts: !q.exclude_reblogs }) : api.author.reads.actorPosts(who.id, range, { withBoosts: !q.exclude_reblogs });
      if (q.pinned && who.id !== 0) return json(c, []);
      const posts = collect(api, read, q, (p) => (!q.exclude_replies || !p.view.inReplyTo) && (!q.only_media || p.view.attachments.length > 0) && (!q.tagged || p.view.tags.some((t) => t.type === 'Hashtag' && t.name.replace(/^#/, '').toLowerCase() === q.tagged!.toLowerCase())));
      const page = statusPage(api, c, posts);
      return json(c, page.body, 200, page.headers);
    }),
  );

  for (const which of ['followers', 'following'] as const) {
    app.get(
      `/api/v1/accounts/:id/${which}`,
      handler((c) => {
        requireToken(core, c, 'read', 'follow');
        const api = apiOf(core, c);
        const who = actorById(api, c.req.param('id') ?? '');
        const q = parse(pageQuery, queryParams(c));
        if (who.id !== 0) return json(c, []);
        // A page read by itself, by account id, as the follow requests' (the People view holds
        // only the first 50 of each list: the 51st follower was on no page).
        const page = api.author.peopleByAccount(which, pageBounds(q));
        return json(c, page.map((p) => api.map.account(p.actor)), 200, linkHeader(c, c.var.local, page.map((p) => String(p.actor.id))));
      }),
    );
  }

  app.post(
    '/api/v1/accounts/:id/follow',
    handler(async (c) => {
      requireToken(core, c, 'write', 'follow');
      const api = apiOf(core, c);
      await bodyParams(c);
      const who = actorById(api, c.req.param('id') ?? '');
      if (who.id === 0) throw new ApiError(422, 'Validation failed: you cannot follow yourself');
      await api.author.follow(who.apId);
      return json(c, apiOf(core, c).map.relationship(who));
    }),
  );

  app.post(
    '/api/v1/accounts/:id/unfollow',
    handler(async (c) => {
      requireToken(core, c, 'write', 'follow');
      await bodyParams(c);
      const api = apiOf(core, c);
      const who = actorById(api, c.req.param('id') ?? '');
      if (who.id === 0) throw new ApiError(422, 'Validation failed: you cannot unfollow yourself');
      api.author.unfollow(who.apId);
      return json(c, apiOf(core, c).map.relationship(who));
    }),
  );

  // A page read by itself (follow-requests.ts pendingFollowRequestsPage), as peoplePage would
  // cut it from them all: by account id, highest first, max_id, since_id and min_id alike.
  app.get(
    '/api/v1/follow_requests',
    handler((c) => {
      requireToken(core, c, 'read', 'follow');
      const api = apiOf(core, c);
      const q = parse(pageQuery, queryParams(c));
      const page = pendingFollowRequestsPage(core.db, pageBounds(q));
      return json(c, page.map((r) => api.map.account(r.actor)), 200, linkHeader(c, c.var.local, page.map((r) => String(r.actor.id))));
    }),
  );

  for (const decision of ['authorize', 'reject'] as const) {
    app.post(
      `/api/v1/follow_requests/:id/${decision}`,
      handler(async (c) => {
        requireToken(core, c, 'write', 'follow');
        await bodyParams(c);
        const api = apiOf(core, c);
        const id = c.req.param('id') ?? '';
        const request = /^[1-9]\d{0,14}$/.test(id) ? pendingFollowRequestFrom(core.db, Number(id)) : null;
        if (!request) throw notFound();
        if (decision === 'authorize') api.author.acceptRequest(request.inboxObjectId);
        else api.author.rejectRequest(request.inboxObjectId);
        return json(c, apiOf(core, c).map.relationship(request.actor));
      }),
    );
  }
}

/** A page of people by account id, highest first, as the timelines page (the Link header's
 * next is max_id, its prev min_id): max_id, below; since_id, the highest above; min_id, the ones
 * just above (the page before), still answered highest first. Read in SQL by account id
 * (people.ts peopleByAccount, follow-requests.ts pendingFollowRequestsPage). */
function pageBounds(q: PageQuery): { below: number | null; above: number | null; closestToAbove: boolean; limit: number } {
  const bound = (id: string | undefined) => (id === undefined ? null : Number(id));
  return { below: bound(q.max_id), above: bound(q.min_id ?? q.since_id), closestToAbove: q.min_id !== undefined, limit: q.limit };
}

/** Follow requests a search looks among: a page of them (by account id, highest first), as it
 * looks among the first pages of followers and followed people, not every one (remote actors
 * decide how many there are; 15,000 decoded took 180–350 ms). */
const SEARCHED_REQUESTS = 200;

/** Accounts matching a query: the author, the people Tern knows (the first pages of each
 * list), and (resolve) an address looked up on its server. */
export async function searchAccounts(api: Api, query: string, resolve: boolean, limit: number) {
  const needle = query.replace(/^@/, '').toLowerCase();
  const people = api.author.peopleKnown();
  const requests = pendingFollowRequestsPage(api.core.db, { limit: SEARCHED_REQUESTS });
  const known = new Map<string, ActorView>();
  for (const p of [...people.following, ...people.followers, ...people.pendingFollows, ...requests]) known.set(p.actor.apId, p.actor);
  const matches = [...known.values()].filter((a) => a.name.toLowerCase().includes(needle) || (a.handle ?? '').toLowerCase().includes(needle) || a.apId.toLowerCase() === needle);
  // Entities for the page only: each may cost a bio's sanitizing.
  const out = matches.slice(0, limit).map((a) => api.map.account(a));
  const own = api.map.ownAccount();
  if (own.username.toLowerCase().includes(needle.split('@')[0] ?? needle)) out.unshift(own);
  if (resolve && out.length === 0 && (/^[^@\s]+@[^@\s]+$/.test(needle) || /^https?:\/\//.test(query))) {
    try {
      const found = await api.author.lookup(query.startsWith('http') ? query : `@${needle}`);
      if (found.kind === 'actor') out.push(api.map.account(found.actor));
    } catch {
      // not found, unreachable or offline: no result
    }
  }
  return out.slice(0, limit);
}

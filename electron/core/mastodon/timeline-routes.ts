// Lists of statuses: the home timeline (the desktop's stream), the public one (everything public
// Tern holds: the author's own and what it received; local = the author's own), a hashtag's,
// bookmarks, favourites, and direct posts as conversations; search (v2) and read markers.
import type { Hono } from 'hono';
import { z } from 'zod';
import type { KeyedPost } from '../federation/actions/reads';
import type { ListenerCore, ListenerEnv } from '../listener/context';
import { searchAccounts } from './account-routes';
import { apiOf, collect, statusPage, type Api } from './api';
import type { PostHit } from '../ipc/search-contract';
import type { DateResume } from '../search/service';
import { BadInputError } from '../errors';
import { bodyParams, bool, handler, int, json, limitParam, linkHeader, pageQuery, parse, queryParams, requireToken } from './http';
import { statusId } from './ids';

const publicQuery = pageQuery.extend({ local: bool.optional(), remote: bool.optional(), only_media: bool.optional() });
/** The furthest `offset` a status search takes (beyond: a 422). Mastodon's own search reads no
 * further either: Elasticsearch refuses a page past its 10,000th hit (max_result_window), and
 * Mastodon asks for a sign-in before it pages at all. An app paging 40 at a time reaches it
 * after 250 pages; the hits passed over cost rowids, not posts (10,000: 1-2 ms). */
const MAX_SEARCH_OFFSET = 10_000;
/** Searches one request makes for a page of statuses, the event loop let go in between. A
 * query with a phrase of common words is searched in steps of at most SCAN_BUDGET_MS (15 ms,
 * search/date-scan.ts): a phrase of two words every post holds that never stand together takes
 * some 1.5 s of steps over 60,000 posts, 7-10 s over 358,000. After these (about 1 s) the page
 * holds what was found, short — an app asks for the next offset or stops, as after the last
 * page. */
const MAX_SEARCH_STEPS = 60;
const hasTag = (p: KeyedPost, tag: string) => p.view.tags.some((t) => t.type === 'Hashtag' && t.name.replace(/^#/, '').toLowerCase() === tag);

/** Posts whose text matches, newest first (the desktop's search, by date), `offset` skipped: the
 * search passes over them by rowid (search.postsByDate) and builds only the page's posts (it
 * read the pages before through, 10,000 posts built and dropped: 450-730 ms). A query the search
 * cannot read is its BadInputError, a 422. */
async function searchStatuses(api: Api, core: ListenerCore, text: string, offset: number, limit: number) {
  const search = core.services?.search;
  if (!search) return [];
  const hits: PostHit[] = [];
  let resume: DateResume | null = null;
  for (let step = 0; step < MAX_SEARCH_STEPS && hits.length < limit; step++) {
    if (step > 0) await new Promise((resolve) => setImmediate(resolve));
    const found = search.postsByDate({ text, offset, limit: limit - hits.length, resume });
    hits.push(...found.hits);
    if (!found.resume) break;
    resume = found.resume;
  }
  return hits.flatMap((hit) => {
    const key = api.author.reads.find(hit.post.apId);
    return key ? [api.map.status(hit.post, key)] : [];
  });
}

export function mountTimelineRoutes(app: Hono<ListenerEnv>, core: ListenerCore): void {
  const page = (path: string, read: (api: ReturnType<typeof apiOf>, q: z.output<typeof publicQuery>, c: Parameters<Parameters<typeof handler>[0]>[0]) => KeyedPost[]) =>
    app.get(
      path,
      handler((c) => {
        requireToken(core, c, 'read');
        const api = apiOf(core, c);
        const q = parse(publicQuery, queryParams(c));
        const result = statusPage(api, c, read(api, q, c));
        return json(c, result.body, 200, result.headers);
      }),
    );

  page('/api/v1/timelines/home', (api, q) => collect(api, (r) => api.author.reads.stream(r), q));
  page('/api/v1/timelines/public', (api, q) =>
    collect(
      api,
      (r) => (q.local ? api.author.reads.ownPosts(r) : api.author.reads.stream(r)),
      q,
      (p) => p.view.visibility === 'PUBLIC' && (!q.remote || !p.view.mine.own) && (!q.only_media || p.view.attachments.length > 0),
    ),
  );
  page('/api/v1/timelines/tag/:tag', (api, q, c) => {
    // Hono has decoded the parameter once already (and left a %-sequence that is not UTF-8 as
    // sent): decoding again threw on a lone % (a 500) and read %2523 as #.
    const tag = (c.req.param('tag') ?? '').replace(/^#/, '').toLowerCase().slice(0, 100);
    return collect(api, (r) => api.author.reads.stream(r), q, (p) => hasTag(p, tag) && (!q.local || p.view.mine.own));
  });
  page('/api/v1/bookmarks', (api, q) => collect(api, (r) => api.author.reads.marked('bookmarked', r), q));
  page('/api/v1/favourites', (api, q) => collect(api, (r) => api.author.reads.marked('liked', r), q));

  app.get(
    '/api/v1/conversations',
    handler((c) => {
      requireToken(core, c, 'read');
      const api = apiOf(core, c);
      const q = parse(pageQuery, queryParams(c));
      const posts = collect(api, (r) => api.author.reads.direct(r), q);
      const body = posts.map((p) => {
        const status = api.map.status(p.view, p.key);
        const others = p.view.mine.own ? [] : [status.account];
        return { id: status.id, unread: false, accounts: others, last_status: status };
      });
      return json(c, body, 200, linkHeader(c, c.var.local, posts.map((p) => statusId(p.key))));
    }),
  );

  app.get(
    '/api/v2/search',
    handler(async (c) => {
      requireToken(core, c, 'read');
      const api = apiOf(core, c);
      const q = parse(
        z.object({ q: z.string().trim().min(1).max(500), type: z.enum(['accounts', 'statuses', 'hashtags']).optional(), resolve: bool.optional(), limit: limitParam(20, 40), offset: int(0, MAX_SEARCH_OFFSET).optional() }),
        queryParams(c),
      );
      const out: { accounts: unknown[]; statuses: unknown[]; hashtags: unknown[] } = { accounts: [], statuses: [], hashtags: [] };
      const offset = q.offset ?? 0;
      if (q.type === undefined || q.type === 'accounts') out.accounts = (await searchAccounts(api, q.q, q.resolve ?? false, offset + q.limit)).slice(offset);
      if (q.type === undefined || q.type === 'statuses') {
        if (q.resolve && /^https?:\/\//.test(q.q)) {
          if (offset === 0) {
            try {
              const found = await api.author.lookup(q.q);
              if (found.kind === 'post') {
                const key = api.author.reads.find(found.post.apId);
                if (key) out.statuses.push(api.map.status(found.post, key));
              }
            } catch {
              // not found, unreachable or offline: no result
            }
          }
        } else {
          try {
            out.statuses = await searchStatuses(api, core, q.q, offset, q.limit);
          } catch (error) {
            // Searching everything, an address or a word the post search cannot read still finds
            // the accounts (Ice Cubes sends "@fan@host" with no type); asked for statuses, a 422.
            if (!(error instanceof BadInputError) || q.type === 'statuses') throw error;
          }
        }
      }
      if (offset === 0 && (q.type === undefined || q.type === 'hashtags')) {
        const tag = q.q.replace(/^#/, '');
        if (/^[\p{L}\p{N}_]{1,100}$/u.test(tag)) out.hashtags.push({ name: tag, url: `${c.var.local.baseUrl}/tags/${encodeURIComponent(tag)}`, history: [], following: false });
      }
      return json(c, out);
    }),
  );

  // Read positions (a phone app sets them as the author scrolls), kept in the settings file so
  // they survive a restart.
  const markers = () => core.settings.get().mastodonMarkers;
  const entity = (m: NonNullable<ReturnType<typeof markers>['home']>) => ({ last_read_id: m.lastReadId, version: m.version, updated_at: m.updatedAt });
  app.get(
    '/api/v1/markers',
    handler((c) => {
      requireToken(core, c, 'read');
      const q = parse(z.object({ timeline: z.preprocess((v) => (v === undefined ? [] : Array.isArray(v) ? v : [v]), z.array(z.enum(['home', 'notifications'])).max(2)) }), queryParams(c));
      const saved = markers();
      return json(c, Object.fromEntries(q.timeline.flatMap((t) => (saved[t] ? [[t, entity(saved[t])]] : []))));
    }),
  );
  app.post(
    '/api/v1/markers',
    handler(async (c) => {
      requireToken(core, c, 'write');
      const marker = z.object({ last_read_id: z.string().regex(/^\d{1,30}$/) }).optional();
      const input = parse(z.object({ home: marker, notifications: marker }), await bodyParams(c));
      const next = { ...markers() };
      for (const timeline of ['home', 'notifications'] as const) {
        const value = input[timeline];
        if (value) next[timeline] = { lastReadId: value.last_read_id, version: (next[timeline]?.version ?? 0) + 1, updatedAt: core.clock().toISOString() };
      }
      const saved = core.settings.update({ mastodonMarkers: next }).mastodonMarkers;
      return json(c, Object.fromEntries(Object.entries(saved).map(([t, m]) => [t, entity(m)])));
    }),
  );
}

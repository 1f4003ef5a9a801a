// The actor at the base URL (ActivityPub JSON or the profile page, by Accept) and its
// collections: outbox, followers, following (OrderedCollection → pages of 20) and featured.
import type { Hono } from 'hono';
import { publishedKeys, toPerson, type PublishedKeys } from '../federation/actor-document';
import {
  countFollowers,
  countFollowing,
  countOutbox,
  featuredItems,
  followersPage,
  followingPage,
  orderedCollection,
  orderedCollectionPage,
  outboxPage,
  recentPublicPosts,
  taggedPublicPosts,
  type Page,
} from '../federation/collections';
import type { LocalActor } from '../federation/identity';
import { AP_CONTEXT } from '../federation/outbox';
import { summaryToHtml } from '../federation/profile-html';
import { activityJson, html, pageParam, problem, type ListenerContext, type ListenerCore, type ListenerEnv } from './context';
import { wantsActivityJson } from './http-parts';
import { hashtagHrefOf } from '../federation/actions/markdown';
import { pageLinkHeader, profilePage, tagPage, type ProfileView } from './pages';
import { photoUrlOf } from './avatar-route';

/** Memoises the last rendering of the Markdown summary (it changes rarely, is read often). */
function summaryRenderer(): (markdown: string) => string {
  let last: { markdown: string; html: string } | null = null;
  return (markdown) => {
    if (last?.markdown !== markdown) last = { markdown, html: summaryToHtml(markdown) };
    return last.html;
  };
}

export function mountActorRoutes(app: Hono<ListenerEnv>, core: ListenerCore): void {
  let keys: Promise<PublishedKeys> | null = null;
  const renderSummary = summaryRenderer();

  const profileView = (local: LocalActor): ProfileView => {
    const settings = core.settings.get();
    return { local, name: settings.displayName || local.username, summaryHtml: renderSummary(settings.summary), photoUrl: photoUrlOf(local, settings) };
  };

  app.get('/', async (c) => {
    const local = c.var.local;
    if (wantsActivityJson(c.req.header('accept'))) {
      keys ??= publishedKeys(core.fed.keys);
      return activityJson(c, toPerson(local, core.settings.get(), await keys));
    }
    c.header('Link', pageLinkHeader(local.baseUrl));
    return html(c, profilePage(profileView(local), recentPublicPosts(core.db)));
  });

  const collection = <T>(c: ListenerContext, id: string, total: () => number, page: (n: number) => Page<T>) => {
    const n = pageParam(c.req.query('page'));
    if (n === undefined) return problem(c, 400, 'page must be a positive integer');
    if (n === null) return activityJson(c, orderedCollection(id, total()));
    return activityJson(c, orderedCollectionPage(id, n, page(n)));
  };

  app.get('/outbox', (c) => collection(c, c.var.local.outbox, () => countOutbox(core.db), (n) => outboxPage(core.db, c.var.local, n)));
  app.get('/followers', (c) => collection(c, c.var.local.followers, () => countFollowers(core.db), (n) => followersPage(core.db, n)));
  app.get('/following', (c) => collection(c, c.var.local.following, () => countFollowing(core.db), (n) => followingPage(core.db, n)));

  // A hashtag's link (the href of the Hashtag tags Tern sends, as microblog.pub's): the author's
  // latest public posts with it — their ids for ActivityPub, the posts as a page for a browser;
  // 404 when there is none.
  app.get('/t/:tag', (c) => {
    const tag = c.req.param('tag').toLowerCase();
    const posts = tag.length > 0 && tag.length <= 200 ? taggedPublicPosts(core.db, tag) : [];
    const local = c.var.local;
    const id = hashtagHrefOf(local.baseUrl)(tag);
    if (wantsActivityJson(c.req.header('accept'))) {
      if (posts.length === 0) return activityJson(c, { error: 'no public post has this tag' }, 404);
      return activityJson(c, { '@context': AP_CONTEXT, id, type: 'OrderedCollection', totalItems: posts.length, orderedItems: posts.map((p) => p.apId) });
    }
    return html(c, tagPage(profileView(local), tag, posts), posts.length === 0 ? 404 : 200);
  });

  app.get('/featured', (c) => {
    const items = featuredItems(core.db);
    // AP_CONTEXT: the embedded Notes carry its terms (sensitive, Hashtag).
    return activityJson(c, { '@context': AP_CONTEXT, id: c.var.local.featured, type: 'OrderedCollection', totalItems: items.length, orderedItems: items });
  });
}

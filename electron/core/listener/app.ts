// The listener: the Hono app a tunnel exposes to the internet. It serves only federation and
// IndieWeb routes — never the IPC transport, never anything administrative — each a thin
// adapter over federation/. Until the author has set a base URL and user name, every known
// route answers 503; unknown routes are 404 always.
import { Hono, type MiddlewareHandler } from 'hono';
import { mountActorRoutes } from './actor-routes';
import { mountDiscoveryRoutes } from './discovery-routes';
import { mountInboxRoute } from './inbox-route';
import { mountIndieAuthRoutes } from './indieauth-routes';
import { mountMicropubRoute } from './micropub-route';
import { mountObjectRoutes } from './object-routes';
import { mountWebmentionRoute } from './webmention-route';
import { bodyLeftUnread } from './http-parts';
import { AVATAR_PATH, mountAvatarRoute } from './avatar-route';
import { mountMissingImages } from './missing-images';
import { mountMediaRoutes } from '../media/listener-routes';
import { mountMastodonApi } from '../mastodon';
import { problem, STORAGE_UNAVAILABLE, type ListenerAppOptions, type ListenerCore, type ListenerEnv } from './context';
import { html } from './context';
import { notFoundPage } from './pages';
import { storageProblem } from '../../../db/storage-errors';

export type { ListenerAppOptions, ListenerCore } from './context';

export function createListenerApp(core: ListenerCore, options: ListenerAppOptions = {}): Hono<ListenerEnv> {
  const app = new Hono<ListenerEnv>();
  const log = options.log ?? (() => {});

  app.use('*', async (c, next) => {
    await next();
    c.header('X-Content-Type-Options', 'nosniff');
    // A refusal before the body was read (a token, a size or a count of fields): the connection
    // closes rather than reading megabytes into nothing to keep it alive.
    if (bodyLeftUnread(c.req.raw)) c.header('Connection', 'close');
  });

  const configured: MiddlewareHandler<ListenerEnv> = async (c, next) => {
    const local = core.identity();
    if (local === null) return problem(c, 503, 'this Tern has no public identity yet (base URL and user name)');
    c.set('local', local);
    await next();
  };
  for (const path of ['/', '/.well-known/*', '/nodeinfo/*', '/outbox', '/followers', '/following', '/featured', '/t/*', '/o/*', '/inbox', '/auth', '/auth/*', '/token', '/token/*', '/register', '/micropub', '/micropub/media', '/webmention', AVATAR_PATH]) {
    app.use(path, configured);
  }

  mountIndieAuthRoutes(app, core);
  mountMicropubRoute(app, core);
  mountDiscoveryRoutes(app, core);
  mountActorRoutes(app, core);
  mountObjectRoutes(app, core);
  mountMediaRoutes(app, core);
  mountInboxRoute(app, core, options);
  mountWebmentionRoute(app, core, options);
  mountAvatarRoute(app, core);
  mountMissingImages(app);
  mountMastodonApi(app, core);

  app.notFound((c) => html(c, notFoundPage(), 404));
  app.onError((error, c) => {
    log(`listener: ${c.req.method} ${c.req.path}: ${error.stack ?? error.message}`);
    if (storageProblem(error) !== null) {
      const { status, error: reason, retryAfterSeconds } = STORAGE_UNAVAILABLE;
      return problem(c, status, reason, { 'Retry-After': String(retryAfterSeconds) });
    }
    return problem(c, 500, 'internal error');
  });
  return app;
}

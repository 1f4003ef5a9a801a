// The Mastodon client API on the listener: what phone and browser apps (Ivory, Ice Cubes, Elk,
// Phanpy, Tusky…) speak, so the author can use Tern from a phone through the tunnel. A thin
// adapter over the same core services as the desktop UI (federation/actions, polls, media,
// notifications, indieauth): it maps their views to Mastodon's entities and nothing more.
// Until the author has a public identity, every route answers 503 like the rest of the listener.
import type { Hono, MiddlewareHandler } from 'hono';
import type { ListenerCore, ListenerEnv } from '../listener/context';
import { mountAccountRoutes } from './account-routes';
import { CORS, errorResponse } from './http';
import { mountInstanceRoutes } from './instance-routes';
import { createDescriptions, mountMediaRoutes } from './media-routes';
import { mountNotificationRoutes } from './notification-routes';
import { mountOAuthRoutes } from './oauth-routes';
import { mountStatusRoutes } from './status-routes';
import { mountTimelineRoutes } from './timeline-routes';

export function mountMastodonApi(app: Hono<ListenerEnv>, core: ListenerCore): void {
  const configured: MiddlewareHandler<ListenerEnv> = async (c, next) => {
    const local = core.identity();
    if (local === null) return errorResponse(c, 503, 'this Tern has no public identity yet (base URL and user name)');
    c.set('local', local);
    await next();
  };
  app.use('/api/*', configured);
  app.use('/oauth/*', configured);
  // Browser clients' preflight, for any /api path.
  app.options('/api/*', (c) => c.body(null, 204, { ...CORS, 'Access-Control-Max-Age': '600' }));

  const descriptions = createDescriptions(core.settings);
  mountOAuthRoutes(app, core);
  mountInstanceRoutes(app, core);
  mountAccountRoutes(app, core);
  mountStatusRoutes(app, core, descriptions);
  mountTimelineRoutes(app, core);
  mountNotificationRoutes(app, core);
  mountMediaRoutes(app, core, descriptions);
  // Anything else under /api is Mastodon's 404, in its shape.
  app.all('/api/*', (c) => errorResponse(c, 404, 'Record not found'));
}

// Discovery routes: WebFinger, host-meta and NodeInfo. Open to every origin (CORS *), since
// web clients of other servers look these up from the browser.
import type { Hono } from 'hono';
import { hostMetaXrd, isLocalResource, nodeinfoDocument, nodeinfoLinks, NODEINFO_SCHEMA, webfingerJrd } from '../federation/webfinger';
import { problem, type ListenerCore, type ListenerEnv } from './context';

const CORS = { 'Access-Control-Allow-Origin': '*' };

export function mountDiscoveryRoutes(app: Hono<ListenerEnv>, core: ListenerCore): void {
  app.get('/.well-known/webfinger', (c) => {
    const resource = c.req.query('resource');
    if (resource === undefined || resource.trim() === '') return problem(c, 400, 'missing resource', CORS);
    if (!isLocalResource(resource, c.var.local)) return problem(c, 404, 'no such resource', CORS);
    return c.body(JSON.stringify(webfingerJrd(c.var.local)), 200, {
      'Content-Type': 'application/jrd+json; charset=utf-8',
      ...CORS,
    });
  });

  app.get('/.well-known/host-meta', (c) =>
    c.body(hostMetaXrd(c.var.local), 200, { 'Content-Type': 'application/xrd+xml; charset=utf-8', ...CORS }),
  );

  app.get('/.well-known/nodeinfo', (c) =>
    c.body(JSON.stringify(nodeinfoLinks(c.var.local)), 200, { 'Content-Type': 'application/json', ...CORS }),
  );

  app.get('/nodeinfo/2.1', (c) =>
    c.body(JSON.stringify(nodeinfoDocument(core.db)), 200, {
      'Content-Type': `application/json; profile="${NODEINFO_SCHEMA}#"`,
      ...CORS,
    }),
  );
}

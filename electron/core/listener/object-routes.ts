// A local object at /o/<publicId> (bare, as ActivityPub or as an h-entry page) and the activity
// that carries it at /o/<publicId>/activity. Every read goes through the visibility rule
// (federation/object-access): followers-only and direct objects need a signed GET from an
// actor allowed to see them, and anything not visible is a 404, deleted or not. A deleted
// object the reader could see is a 410 with a Tombstone, and so is an edit (Update) of it.
// /o/<publicId>/authorization is the QuoteAuthorization an Accept of ours grants.
import type { Hono } from 'hono';
import { eq } from 'drizzle-orm';
import { outbox, type OutboxObject } from '../../../db/schema';
import { AS_CONTEXT, bareObject, isPost, tombstone, wrapperActivity } from '../federation/collections';
import { findQuoteAuthorization, toQuoteAuthorization } from '../federation/quote-authorizations';
import { canView, findLocalObject, needsViewer } from '../federation/object-access';
import { activityJson, html, type ListenerContext, type ListenerCore, type ListenerEnv } from './context';
import { wantsActivityJson } from './http-parts';
import { signedGetActor } from './signed-get';
import { deletedPage, notFoundPage, objectPage, pageLinkHeader } from './pages';
import { photoUrlOf } from './avatar-route';

export function mountObjectRoutes(app: Hono<ListenerEnv>, core: ListenerCore): void {
  /** The row if this reader may see it; signatures are checked only when visibility needs them. */
  const visible = async (c: ListenerContext): Promise<OutboxObject | null> => {
    const row = findLocalObject(core.db, c.var.local, c.req.param('publicId') ?? '');
    if (row === undefined) return null;
    const viewer = needsViewer(row) ? await signedGetActor(core, c, c.var.local) : null;
    return canView(core.db, row, viewer) ? row : null;
  };

  /** An Update carries the post's text: once the post is deleted, so is each of its edits (also
   * those stored before deletePost marked them deleted). */
  const editOfDeletedPost = (row: OutboxObject): boolean => {
    if (row.apType !== 'Update' || row.relatesToOutboxObjectId === null) return false;
    const post = core.db.select({ isDeleted: outbox.isDeleted }).from(outbox).where(eq(outbox.id, row.relatesToOutboxObjectId)).get();
    return post?.isDeleted === true;
  };

  const notFound = (c: ListenerContext, ap: boolean) =>
    ap ? activityJson(c, { error: 'not found' }, 404) : html(c, notFoundPage(), 404);

  app.get('/o/:publicId', async (c) => {
    const ap = wantsActivityJson(c.req.header('accept'));
    const row = await visible(c);
    if (row === null) return notFound(c, ap);
    if (row.isDeleted || editOfDeletedPost(row)) return ap ? activityJson(c, tombstone(row), 410) : html(c, deletedPage(), 410);
    if (ap) return activityJson(c, bareObject(row));
    const settings = core.settings.get();
    const local = c.var.local;
    c.header('Link', pageLinkHeader(local.baseUrl));
    const name = settings.displayName || local.username;
    return html(c, objectPage({ local, name, summaryHtml: '', photoUrl: photoUrlOf(local, settings) }, row));
  });

  // A QuoteAuthorization an Accept of ours granted (FEP-044f): public, as the posts it is granted
  // for are; gone once revoked (federation/quote-authorizations.ts), unknown otherwise.
  app.get('/o/:publicId/authorization', (c) => {
    const local = c.var.local;
    const found = findQuoteAuthorization(core.db, local, c.req.param('publicId'));
    if (found.status === 'none') return activityJson(c, { error: 'not found' }, 404);
    const doc = toQuoteAuthorization(local, found.accept, found.request);
    if (found.status === 'gone') return activityJson(c, { '@context': AS_CONTEXT, id: doc.id, type: 'Tombstone', formerType: 'QuoteAuthorization' }, 410);
    return activityJson(c, doc);
  });

  app.get('/o/:publicId/activity', async (c) => {
    const ap = wantsActivityJson(c.req.header('accept'));
    const row = await visible(c);
    if (row === null || !isPost(row)) return notFound(c, ap);
    const local = c.var.local;
    if (!ap) return c.redirect(local.objectUrl(row.publicId), 303);
    if (row.isDeleted) return activityJson(c, { ...tombstone(row), id: local.activityUrl(row.publicId) }, 410);
    return activityJson(c, wrapperActivity(row, local));
  });
}

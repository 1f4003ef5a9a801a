// Sending webmentions through the real delivery loop: posts written with the author's actions,
// linked pages and their endpoints on a loopback site, connectivity under the test's control.
import { and, eq, isNotNull } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { outgoingActivity } from '../../../db/schema';
import { openAuthorRig, type AuthorRig } from '../federation/actions/test-rig';
import { startServer, type LoopbackServer } from '../net/test-server';
import { webmentionTargets } from './send';
import { listSentWebmentions } from './views';

let rig: AuthorRig;
let site: LoopbackServer;
/** Status the endpoint answers with (changed by some tests). */
let endpointStatus = 202;

beforeAll(async () => {
  rig = await openAuthorRig();
  site = await startServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (path === '/endpoint' || path === '/other-endpoint') {
      res.statusCode = endpointStatus;
      return res.end('ok');
    }
    res.setHeader('content-type', 'text/html');
    if (path.startsWith('/a')) res.setHeader('link', '</endpoint?via=header>; rel="webmention"');
    if (path.startsWith('/b')) return res.end('<html><head><link rel="webmention" href="other-endpoint"></head></html>');
    if (path.startsWith('/none')) return res.end('<html><head></head><body>no endpoint</body></html>');
    res.end('<html></html>');
  });
});

afterAll(async () => {
  await site.close();
  await rig.close();
});

beforeEach(() => {
  endpointStatus = 202;
  site.seen.length = 0;
  rig.net.set(true);
});

const webmentionRows = (postId: number) =>
  rig.core.db
    .select()
    .from(outgoingActivity)
    .where(and(eq(outgoingActivity.outboxObjectId, postId), isNotNull(outgoingActivity.webmentionTarget)))
    .orderBy(outgoingActivity.id)
    .all();

const sentForms = () =>
  site.seen
    .filter((r) => r.method === 'POST')
    .map((r) => ({ path: r.path, type: r.headers['content-type'], signed: r.headers.signature !== undefined, form: Object.fromEntries(new URLSearchParams(r.body)) }));

async function settle(): Promise<void> {
  // Resolution (discovery) then the POST: two rounds of the loop at most.
  await rig.core.loops.delivery.drain();
  await rig.core.loops.delivery.drain();
}

async function publish(content: string, visibility: 'PUBLIC' | 'UNLISTED' = 'PUBLIC') {
  const post = await rig.author.createPost({ content, visibility });
  return { apId: post.apId, id: post.id };
}

describe('sending webmentions', () => {
  it('a public post sends one webmention per linked page, found by discovery, unsigned and form-encoded', async () => {
    const post = await publish(`See [a](${site.origin}/a1), [b](${site.origin}/b1), [none](${site.origin}/none1) and [me](${rig.url}/o/xyz).`);
    expect(webmentionRows(post.id).map((r) => r.webmentionTarget)).toEqual([`${site.origin}/a1`, `${site.origin}/b1`, `${site.origin}/none1`]);
    await settle();
    expect(sentForms().sort((x, y) => x.path.localeCompare(y.path))).toEqual([
      { path: '/endpoint?via=header', type: 'application/x-www-form-urlencoded', signed: false, form: { source: post.apId, target: `${site.origin}/a1` } },
      { path: '/other-endpoint', type: 'application/x-www-form-urlencoded', signed: false, form: { source: post.apId, target: `${site.origin}/b1` } },
    ]);
    const rows = webmentionRows(post.id);
    expect(rows.map((r) => [r.recipient, r.isSent, r.isErrored, r.lastStatusCode])).toEqual([
      [`${site.origin}/endpoint?via=header`, true, false, 202],
      [`${site.origin}/other-endpoint`, true, false, 202],
      [`webmention:${site.origin}/none1`, false, true, null],
    ]);
    expect(rows[2]?.error).toMatch(/does not accept webmentions/);
    const sent = listSentWebmentions(rig.core.db, { limit: 3 }, new Set()).items;
    expect(sent.map((w) => [w.source, w.target, w.state, w.endpoint])).toEqual([
      [post.apId, `${site.origin}/none1`, 'failed', null],
      [post.apId, `${site.origin}/b1`, 'sent', `${site.origin}/other-endpoint`],
      [post.apId, `${site.origin}/a1`, 'sent', `${site.origin}/endpoint?via=header`],
    ]);
  });

  it('offline: nothing is attempted and no try spent; back online it is sent', async () => {
    rig.net.set(false);
    const post = await publish(`Offline link to [a](${site.origin}/a2)`);
    await settle();
    expect(webmentionRows(post.id).map((r) => [r.tries, r.isSent])).toEqual([[0, false]]);
    expect(sentForms()).toEqual([]);
    rig.net.set(true);
    await settle();
    expect(webmentionRows(post.id).map((r) => [r.tries, r.isSent])).toEqual([[1, true]]);
  });

  it('an edit sends to the pages linked now and to those whose link was removed', async () => {
    const post = await publish(`[a](${site.origin}/a3) and [b](${site.origin}/b3)`);
    await settle();
    site.seen.length = 0;
    await rig.author.editPost({ apId: post.apId, content: `Only [a](${site.origin}/a3) and new [a4](${site.origin}/a4)` });
    await settle();
    expect(sentForms().map((f) => f.form.target).sort()).toEqual([`${site.origin}/a3`, `${site.origin}/a4`, `${site.origin}/b3`]);
  });

  it('a delete sends to every page any version linked to', async () => {
    const post = await publish(`[a](${site.origin}/a5)`);
    await rig.author.editPost({ apId: post.apId, content: `[b](${site.origin}/b5)` });
    await settle();
    site.seen.length = 0;
    rig.author.deletePost(post.apId);
    await settle();
    expect(sentForms().map((f) => f.form.target).sort()).toEqual([`${site.origin}/a5`, `${site.origin}/b5`]);
  });

  it('an unlisted post sends no webmention', async () => {
    const post = await publish(`[a](${site.origin}/a6)`, 'UNLISTED');
    expect(webmentionRows(post.id)).toEqual([]);
  });

  it('webmention rows do not change the post’s delivery state to servers, and Updates never go to endpoints', async () => {
    const post = await publish(`[a](${site.origin}/a7)`);
    await settle();
    await rig.author.editPost({ apId: post.apId, content: 'no links now' });
    const updateRows = rig.core.db.select().from(outgoingActivity).all().filter((r) => r.webmentionTarget === null && r.recipient.includes('/endpoint'));
    expect(updateRows).toEqual([]);
  });

  it('an endpoint refusing with 400 is given up at once; a 500 is retried later', async () => {
    endpointStatus = 400;
    const refused = await publish(`[a](${site.origin}/a8)`);
    await settle();
    expect(webmentionRows(refused.id).map((r) => [r.isErrored, r.tries, r.lastStatusCode])).toEqual([[true, 1, 400]]);
    endpointStatus = 500;
    const later = await publish(`[a](${site.origin}/a9)`);
    await settle();
    const [row] = webmentionRows(later.id);
    expect([row?.isErrored, row?.isSent, row?.tries, row?.lastStatusCode]).toEqual([false, false, 1, 500]);
    expect(row?.nextTry?.getTime()).toBeGreaterThan(rig.core.clock().getTime());
  });
});

describe('which links get a webmention', () => {
  const local = { baseUrl: 'https://tern.example' } as Parameters<typeof webmentionTargets>[0];
  it('external pages only: not the author’s own, not mentions, hashtags or media files', () => {
    const object = {
      content:
        '<p><a href="https://blog.example/post#part">post</a> <a href="https://tern.example/o/1">mine</a> ' +
        '<a class="mention" href="https://social.example/@bob">@bob</a> <a class="hashtag" rel="tag" href="https://social.example/tags/x">#x</a> ' +
        '<a href="https://cdn.example/photo.JPG">photo</a> <a href="https://people.example/carol">carol</a> <a href="mailto:a@b.c">mail</a></p>',
      tag: [{ type: 'Mention', href: 'https://people.example/carol' }],
    };
    expect(webmentionTargets(local, object)).toEqual(['https://blog.example/post']);
  });
});

// Mentions without a name (Smithereen sends `{type: Mention, href}`) and what a `summary` is
// (a warning on a Note or Question, or when sensitive — Mastodon's rule; an Article's or a Page's
// lead otherwise), through the inbox processor into the stream's views. Shapes after
// Smithereen's Mention and the WordPress ActivityPub plugin's Article; the text is ours.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PUBLIC, type Json } from '../ap';
import { homeStream } from '../actions/timeline';
import { ownActorView } from '../actions/views';
import type { PostView } from '../../ipc/author-contract';
import { startSoftwareServer, type SoftwareServer } from './software-servers';
import { openRig, type Rig } from './test-rig';

let sm: SoftwareServer; // Smithereen
let wp: SoftwareServer; // a blog (WordPress's ActivityPub plugin)
let rig: Rig;
beforeAll(async () => {
  [sm, wp] = await Promise.all([startSoftwareServer(), startSoftwareServer()]);
});
afterAll(() => Promise.all([sm.server.close(), wp.server.close()]));
afterEach(() => rig?.close());

const stream = (): PostView[] => homeStream(rig.core.db, ownActorView(rig.local, 'Author'), { limit: 50 }, rig.now()).items;
const create = (actor: string, object: Json): Json => ({ id: `${String(object.id)}/activity`, type: 'Create', actor, to: [PUBLIC], object });

describe('Mentions and summaries', () => {
  it('Smithereen Mentions without a name are kept, named from the actor (ours, a cached one) or the href, and notify', async () => {
    rig = await openRig();
    const writer = sm.actor('/users/1', 'Person', 'vera');
    const cached = sm.actor('/users/2', 'Person', 'ivan');
    await rig.follow(writer);
    await rig.follow(cached);
    const id = `${sm.origin}/posts/17`;
    await rig.receive(
      create(writer, {
        id,
        type: 'Note',
        attributedTo: writer,
        content: '<p>Hello to both of you</p>',
        tag: [
          { type: 'Mention', href: rig.local.id },
          { type: 'Mention', href: cached },
          { type: 'Mention', href: `${sm.origin}/users/3` },
        ],
        to: [PUBLIC],
      }),
    );
    const host = new URL(sm.origin).host;
    const names = [rig.local.handle, `@ivan@${host}`, `@3@${host}`];
    expect((rig.inboxRow(id)!.apObject.tag as Json[]).map((t) => t.name)).toEqual(names);
    expect(rig.notificationsOf('MENTION')).toHaveLength(1);
    expect(stream()[0]!.tags.map((t) => [t.type, t.name])).toEqual(names.map((n) => ['Mention', n]));
  });

  it("an Article's summary is its excerpt, not a warning; a Note's summary is; a sensitive Article's summary is too", async () => {
    rig = await openRig();
    const blog = wp.actor('/author/sam', 'Person', 'sam');
    await rig.follow(blog);
    const post = (n: number, type: string, extra: Json = {}): Json => ({
      id: `${wp.origin}/${n}`,
      type,
      name: `Post ${n}`,
      summary: `<p>Lead &amp; text ${n}</p>`,
      content: `<p>Body ${n}</p>`,
      attributedTo: blog,
      published: `2025-01-0${n}T10:00:00Z`,
      to: [PUBLIC],
      ...extra,
    });
    await rig.receive(create(blog, post(1, 'Article')));
    await rig.receive(create(blog, post(2, 'Note')));
    await rig.receive(create(blog, post(3, 'Article', { sensitive: true })));
    await rig.receive(create(blog, post(4, 'Page')));
    const byId = new Map(stream().map((p) => [p.apId, p]));
    const pick = (n: number) => {
      const p = byId.get(`${wp.origin}/${n}`)!;
      return { title: p.title, summary: p.summary, excerpt: p.excerpt, sensitive: p.sensitive };
    };
    expect(pick(1)).toEqual({ title: 'Post 1', summary: null, excerpt: 'Lead & text 1', sensitive: false });
    expect(pick(2)).toEqual({ title: null, summary: 'Lead & text 2', excerpt: null, sensitive: true });
    expect(pick(3)).toEqual({ title: 'Post 3', summary: 'Lead & text 3', excerpt: null, sensitive: true });
    expect(pick(4)).toEqual({ title: 'Post 4', summary: null, excerpt: 'Lead & text 4', sensitive: false });
  });
});

import { spawnSync } from 'node:child_process';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { setSkipLog } from '../../../db/readable-rows';
import { versionOf } from '../../../migrations/test-tools';
import { createHandlers, dispatch } from '../ipc/handlers';
import { notifications } from '../../../db/schema';
import type { Json } from '../federation/ap';
import { languageField } from '../federation/objects';
import { htmlToExcerpt } from '../federation/sanitize';
import { openRig, startRemotes, type Remotes, type Rig } from '../federation/process/test-rig';

let remotes: Remotes;
let rig: Rig;
beforeAll(async () => {
  remotes = await startRemotes();
});
afterAll(() => remotes.close());
afterEach(() => rig?.close());

const aliceId = () => String(remotes.fixture('actors/mastodon-alice.json').id);
const OUR_POST = 'https://tern.example/o/5b8a1c2d3e4f';

/** A like, a mention and a follow, a minute apart. */
async function threeNotifications() {
  rig.ourPost('5b8a1c2d3e4f', { content: '<p>Our <b>post</b> &amp; its text</p>' });
  await rig.receive({ id: `${aliceId()}#likes/1`, type: 'Like', actor: aliceId(), object: OUR_POST });
  rig.advance(60_000);
  await rig.receive(remotes.fixture('mastodon-create-note-mention-hashtag.json'));
  rig.advance(60_000);
  await rig.receive({ id: `${aliceId()}#follows/1`, type: 'Follow', actor: aliceId(), object: 'https://tern.example' });
}

describe('notifications service', () => {
  it('lists newest first, joined with the actor and plain-text excerpts of the objects', async () => {
    rig = await openRig();
    await threeNotifications();
    const page = rig.core.services.notifications.list();
    expect(page.unreadCount).toBe(3);
    expect(page.nextOffset).toBeNull();
    expect(page.items.map((n) => n.type)).toEqual(['NEW_FOLLOWER', 'MENTION', 'LIKE']);
    const [, mention, like] = page.items;
    expect(like!.actor).toEqual({
      id: expect.any(Number),
      apId: aliceId(),
      name: 'Alice :verified:',
      handle: expect.stringMatching(/^@alice@/),
      iconUrl: expect.stringMatching(/^https:\/\/files\.mastodon\.example\/accounts\/avatars\//),
      // The page loads the avatar only through Tern's media proxy.
      iconSrc: expect.stringMatching(/^\/media\/proxy\/[\w-]{32}\/[\w-]+$/),
      url: expect.stringMatching(/\/@alice$/),
      // The custom emoji of the name (its Emoji tag), its picture through the proxy too.
      emojis: [
        {
          shortcode: 'verified',
          url: expect.stringMatching(/^https:\/\/files\.mastodon\.example\/custom_emojis\//),
          src: expect.stringMatching(/^\/media\/proxy\/[\w-]{32}\/[\w-]+$/),
        },
      ],
    });
    expect(like!.outboxObject).toMatchObject({ box: 'outbox', apId: OUR_POST, apType: 'Note', excerpt: 'Our post & its text', isDeleted: false });
    expect(like!.inboxObject).toMatchObject({ box: 'inbox', apType: 'Like', excerpt: null });
    expect(mention!.inboxObject!.excerpt).toBe('@author Loving the new desktop client! #fediverse');
    expect(mention!.createdAt).toBe(new Date(rig.now().getTime() - 60_000).toISOString());
  });

  it('puts unread first, pages, marks read, and counts unread', async () => {
    rig = await openRig();
    await threeNotifications();
    const svc = rig.core.services.notifications;
    const all = svc.list().items;
    const like = all.find((n) => n.type === 'LIKE')!;
    expect(svc.markRead([like.id, 999_999])).toBe(1);
    expect(svc.markRead([like.id])).toBe(0);
    expect(svc.unreadCount()).toBe(2);
    // The newest read one still comes after the older unread ones.
    expect(svc.list().items.map((n) => [n.type, n.isNew])).toEqual([
      ['NEW_FOLLOWER', true],
      ['MENTION', true],
      ['LIKE', false],
    ]);
    const first = svc.list({ limit: 2 });
    expect(first.items).toHaveLength(2);
    expect(first.nextOffset).toBe(2);
    const second = svc.list({ limit: 2, offset: first.nextOffset! });
    expect(second.items.map((n) => n.type)).toEqual(['LIKE']);
    expect(second.nextOffset).toBeNull();
    // By cursor: the same next page, unread first kept across the cut; a cursor it never gave reads as the first page.
    const byCursor = svc.list({ limit: 2, cursor: first.nextCursor });
    expect(byCursor.items.map((n) => [n.type, n.isNew])).toEqual([['LIKE', false]]);
    expect(byCursor.nextCursor).toBeNull();
    expect(svc.list({ limit: 1, cursor: svc.list({ limit: 1 }).nextCursor }).items.map((n) => n.type)).toEqual(['MENTION']);
    expect(svc.list({ limit: 2, cursor: 'not-a-cursor' }).items.map((n) => n.type)).toEqual(['NEW_FOLLOWER', 'MENTION']);
    expect(await svc.markAllRead()).toBe(2);
    expect(svc.unreadCount()).toBe(0);
  });

  it('pages by cursor through unread and read ones alike, at every size, ties on the instant by id', async () => {
    rig = await openRig();
    const { db } = rig.core;
    const at = (minutes: number) => new Date(rig.now().getTime() + minutes * 60_000);
    // Eight follows: read and unread mixed, two instants held by two rows each.
    const rows: [number, boolean][] = [[0, true], [1, false], [1, false], [2, true], [3, false], [3, true], [4, false], [5, true]];
    const ids = rows.map(([minutes, isNew]) => db.insert(notifications).values({ createdAt: at(minutes), notificationType: 'NEW_FOLLOWER', isNew }).returning({ id: notifications.id }).get().id);
    const svc = rig.core.services.notifications;
    // Unread first, then read; newest first in each; the later row first at the same instant.
    const wanted = [ids[7], ids[5], ids[3], ids[0], ids[6], ids[4], ids[2], ids[1]];
    expect(svc.list({ limit: 100 }).items.map((n) => n.id)).toEqual(wanted);
    for (const limit of [1, 2, 3]) {
      const seen: number[] = [];
      let cursor: string | null = null;
      for (let page = 0; page < 10; page++) {
        const got = svc.list({ limit, cursor });
        seen.push(...got.items.map((n) => n.id));
        if (got.nextCursor === null) break;
        cursor = got.nextCursor;
      }
      expect(seen, `${limit} a page`).toEqual(wanted);
    }
  });

  it('range and rangeKeys by actor (account_id): only that actor’s, or (null) only those without one', async () => {
    rig = await openRig();
    await threeNotifications();
    const svc = rig.core.services.notifications;
    const alice = svc.range({ limit: 10 })[0]!.actor!.id;
    const own = rig.core.db.insert(notifications).values({ createdAt: rig.now(), notificationType: 'UNFOLLOW', isNew: true, actorId: null }).returning().get().id;
    expect(svc.range({ limit: 10, actorId: alice }).map((n) => n.type)).toEqual(['NEW_FOLLOWER', 'MENTION', 'LIKE']);
    expect(svc.rangeKeys({ limit: 10, actorId: alice }).map((n) => n.type)).toEqual(['NEW_FOLLOWER', 'MENTION', 'LIKE']);
    expect(svc.range({ limit: 10, actorId: alice, types: ['LIKE'] }).map((n) => n.type)).toEqual(['LIKE']);
    expect(svc.range({ limit: 10, actorId: null }).map((n) => n.id)).toEqual([own]);
    expect(svc.range({ limit: 10, actorId: alice + 1000 })).toEqual([]);
    expect(svc.range({ limit: 10 })).toHaveLength(4);
  });

  it('a notification whose post was deleted stays, without the text', async () => {
    rig = await openRig();
    const create = remotes.fixture('mastodon-create-note-mention-hashtag.json');
    await rig.receive(create);
    const noteId = String((create.object as Json).id);
    await rig.receive({ id: `${noteId}#delete`, type: 'Delete', actor: create.actor, object: noteId });
    const [mention] = rig.core.services.notifications.list().items;
    expect(mention).toMatchObject({ type: 'MENTION', inboxObject: { apId: noteId, isDeleted: true, excerpt: null } });
  });
});

describe('notifications other tools wrote', () => {
  it.skipIf(versionOf('shell') === null)('the sqlite3 shell can add one dated with an offset or " Z": it is listed at its time; one dated 24:30 is refused, not stored to break the list', async () => {
    rig = await openRig();
    await threeNotifications(); // 12:00, 12:01, 12:02 UTC
    const db = rig.core.sqlite.name;
    const add = (at: string) => spawnSync('sqlite3', [db, `INSERT INTO notifications (created_at, notification_type, is_new, actor_id) VALUES ('${at}', 'UNFOLLOW', 1, 1)`], { encoding: 'utf8' }).stderr.trim();
    expect(add('2025-01-10T13:01:30+01:00')).toBe(''); // 12:01:30 UTC
    expect(add('2025-01-10T12:03:00 Z')).toBe('');
    expect(add('2025-01-10T24:30:00Z')).toMatch('CHECK constraint failed: ck_notifications_created_at');
    const items = rig.core.services.notifications.list().items;
    expect(items.map((n) => [n.type, n.createdAt])).toEqual([
      ['UNFOLLOW', '2025-01-10T12:03:00.000Z'],
      ['NEW_FOLLOWER', '2025-01-10T12:02:00.000Z'],
      ['UNFOLLOW', '2025-01-10T12:01:30.000Z'],
      ['MENTION', '2025-01-10T12:01:00.000Z'],
      ['LIKE', '2025-01-10T12:00:00.000Z'],
    ]);
  });

  it('one that cannot be read (past the CHECKs: a date Date cannot read, a post whose object is JSON null) is left out of list and range and reported; the others are listed', async () => {
    rig = await openRig();
    await threeNotifications();
    const skipped: string[] = [];
    const previous = setSkipLog((m) => skipped.push(m));
    try {
      const sqlite = rig.core.sqlite;
      sqlite.pragma('ignore_check_constraints = ON');
      sqlite.exec("UPDATE notifications SET created_at = '2025-01-xxT12:00:00.000Z' WHERE notification_type = 'LIKE'");
      sqlite.exec("UPDATE inbox SET ap_object = 'null' WHERE id = (SELECT inbox_object_id FROM notifications WHERE notification_type = 'MENTION')");
      sqlite.pragma('ignore_check_constraints = OFF');
      const svc = rig.core.services.notifications;
      expect(svc.list().items.map((n) => n.type)).toEqual(['NEW_FOLLOWER']);
      expect(svc.range({ limit: 10 }).map((n) => n.type)).toEqual(['NEW_FOLLOWER']);
      expect(skipped.filter((m) => /^skipped notification \d+, which cannot be read: /.test(m))).toHaveLength(4);
      // Paged two at a time, the readable one is still reached.
      const first = svc.list({ limit: 2 });
      const second = first.nextCursor ? svc.list({ limit: 2, cursor: first.nextCursor }).items : [];
      expect([...first.items, ...second].map((n) => n.type)).toEqual(['NEW_FOLLOWER']);
    } finally {
      setSkipLog(previous);
    }
  });
});

describe('typeless notifications of a move and a report', () => {
  it('a move names the account that moved (the notification’s actor is the new one); a report names the server, the comment and our reported posts', async () => {
    rig = await openRig();
    const origin = remotes.servers['mastodon.example'].server.origin;
    const alice = remotes.fixture('actors/mastodon-alice.json');
    const newId = `${origin}/users/alice_new`;
    remotes.servers['mastodon.example'].put(newId, { ...alice, id: newId, name: 'Alice (new)', inbox: `${newId}/inbox`, alsoKnownAs: [aliceId()] });
    await rig.follow(aliceId());
    await rig.receive({ id: `${aliceId()}#moves/1`, type: 'Move', actor: aliceId(), object: aliceId(), target: newId });
    const post = rig.ourPost('5b8a1c2d3e4f', { content: '<p>The reported post</p>' });
    rig.advance(60_000);
    await rig.receive({ type: 'Flag', actor: aliceId(), content: 'Off <b>topic</b>', object: [rig.local.id, OUR_POST, 'https://elsewhere.example/x'] });

    const [report, moved] = rig.core.services.notifications.list().items;
    expect(moved).toMatchObject({ type: null, actor: { apId: newId, name: 'Alice (new)' }, inboxObject: { apType: 'Move' } });
    expect(moved!.detail).toEqual({ kind: 'moved', from: expect.objectContaining({ apId: aliceId(), name: 'Alice :verified:' }) });
    expect(report).toMatchObject({ type: null, actor: { apId: aliceId() }, inboxObject: { apType: 'Flag' } });
    expect(report!.detail).toEqual({
      kind: 'report',
      server: new URL(origin).host,
      comment: 'Off topic',
      posts: [expect.objectContaining({ id: post.id, apId: OUR_POST, excerpt: 'The reported post' })],
    });
  });
});

describe('the excerpt of a mention', () => {
  /** The fixture's mention of the author, as post `n` with these fields of its Note (undefined: without it). */
  const mentionWith = (n: number, fields: Json): Json => {
    const create = remotes.fixture('mastodon-create-note-mention-hashtag.json');
    const note: Json = { ...(create.object as Json), id: `${String((create.object as Json).id)}${n}`, ...fields };
    for (const [key, value] of Object.entries(fields)) if (value === undefined) delete note[key];
    return { ...create, id: `${String(create.id)}${n}`, object: note };
  };
  const mentionOf = (name: string) => `<span class="h-card" translate="no"><a href="https://mastodon.example/@${name}" class="u-url mention">@<span>${name}</span></a></span>`;
  const long = `<p>${['author', 'bob', 'carol'].map(mentionOf).join(' ')} A long post &amp; its text, ${'on and on. '.repeat(600)}</p>`;

  it('is read from the first 4 KiB of its markup in SQL: the title, else the warning, else the content or its language map, as from the whole document', async () => {
    rig = await openRig();
    const posts: Json[] = [
      mentionWith(1, { content: long, contentMap: { en: long } }),
      mentionWith(2, { content: undefined, contentMap: { de: long, en: '<p>not the first</p>' } }),
      mentionWith(3, { summary: 'A warning &amp; a <b>title</b>', sensitive: true, content: long, contentMap: undefined }),
      mentionWith(4, { summary: '', content: long, contentMap: undefined }),
      mentionWith(5, { content: `<p>${mentionOf('author')} ${'<span class="h-card"><a href="https://x.example/7" class="u-url mention">@<span>x7</span></a></span> '.repeat(400)}${'y'.repeat(5_000)}</p>`, contentMap: undefined }),
      mentionWith(6, { content: undefined, contentMap: undefined }),
    ];
    for (const post of posts) {
      await rig.receive(post);
      rig.advance(1000);
    }
    const items = rig.core.services.notifications.list().items.filter((n) => n.type === 'MENTION').reverse();
    expect(items).toHaveLength(posts.length);
    // What excerptOf made of the whole stored document before: languageField and htmlToExcerpt.
    const stored = (apId: string) => JSON.parse(String(rig.core.sqlite.prepare('SELECT ap_object FROM inbox WHERE ap_id = ?').pluck().get(apId))) as Json;
    const whole = (object: Json) => {
      const html = languageField(object, 'name') || languageField(object, 'summary') || languageField(object, 'content');
      return html ? htmlToExcerpt(html, 140) || null : null;
    };
    const excerpts = items.map((n) => n.inboxObject!.excerpt);
    const wholes = items.map((n) => whole(stored(n.inboxObject!.apId)));
    // The same, but for the post of 400 mentions of "@x7": 4 KiB of its markup (each mention about
    // 130 characters once stored, with its rel) hold fewer than 140 characters of text, shown with "…".
    expect(excerpts.toSpliced(4, 1)).toEqual(wholes.toSpliced(4, 1));
    expect(excerpts[4]!.length).toBeLessThan(wholes[4]!.length);
    expect(wholes[4]!.startsWith(excerpts[4]!.slice(0, -1))).toBe(true);
    expect(excerpts).toEqual([
      expect.stringMatching(/^@author @bob @carol A long post & its text, on and on\. .*…$/),
      expect.stringMatching(/^@author @bob @carol A long post/),
      'A warning & a title',
      expect.stringMatching(/^@author @bob @carol A long post/),
      expect.stringMatching(/^@author @x7 @x7 .*…$/),
      null,
    ]);
  });
});

describe('mark all read', () => {
  it('marks them a batch at a time, the first before the call returns; one that arrives meanwhile stays new', async () => {
    rig = await openRig();
    const sqlite = rig.core.sqlite;
    const add = sqlite.prepare("INSERT INTO notifications (created_at, notification_type, is_new) VALUES ('2025-01-10T12:00:00.000Z', 'LIKE', ?)");
    sqlite.transaction(() => {
      for (let i = 0; i < 4500; i++) add.run(i % 10 === 0 ? 0 : 1);
    })();
    const svc = rig.core.services.notifications;
    expect(svc.unreadCount()).toBe(4050);
    const marking = svc.markAllRead();
    expect(svc.unreadCount()).toBe(4050 - 2000);
    const arrived = Number(add.run(1).lastInsertRowid);
    expect(await marking).toBe(4050);
    expect(svc.unreadCount()).toBe(1);
    expect(svc.list({ limit: 1 }).items.map((n) => [n.id, n.isNew])).toEqual([[arrived, true]]);
    expect(await svc.markAllRead()).toBe(1);
    expect(await svc.markAllRead()).toBe(0);
  });

  it('clears them a batch at a time too (the Mastodon API’s clear); one that arrives meanwhile stays', async () => {
    rig = await openRig();
    const sqlite = rig.core.sqlite;
    const add = sqlite.prepare("INSERT INTO notifications (created_at, notification_type, is_new) VALUES ('2025-01-10T12:00:00.000Z', 'LIKE', 1)");
    sqlite.transaction(() => {
      for (let i = 0; i < 4500; i++) add.run();
    })();
    const svc = rig.core.services.notifications;
    const clearing = svc.clear();
    expect(sqlite.prepare('SELECT count(*) FROM notifications').pluck().get()).toBe(2500);
    const arrived = Number(add.run().lastInsertRowid);
    expect(await clearing).toBe(4500);
    expect(svc.list({ limit: 5 }).items.map((n) => n.id)).toEqual([arrived]);
  });
});

describe('IPC channels', () => {
  it('notifications.* and follow-requests.list go through the contract', async () => {
    rig = await openRig({ manuallyApprovesFollowers: true });
    rig.ourPost('5b8a1c2d3e4f');
    await rig.receive({ id: `${aliceId()}#likes/1`, type: 'Like', actor: aliceId(), object: OUR_POST });
    await rig.receive({ id: `${aliceId()}#follows/1`, type: 'Follow', actor: aliceId(), object: 'https://tern.example' });
    const handlers = createHandlers(rig.core);

    const list = await dispatch(handlers, 'notifications.list', {});
    expect(list).toMatchObject({ ok: true, value: { items: [{ type: 'LIKE' }], unreadCount: 1 } });
    expect(await dispatch(handlers, 'notifications.unreadCount', {})).toEqual({ ok: true, value: { count: 1 } });
    const id = (list as { value: { items: { id: number }[] } }).value.items[0]!.id;
    expect(await dispatch(handlers, 'notifications.markRead', { ids: [id] })).toEqual({ ok: true, value: { updated: 1 } });
    expect(await dispatch(handlers, 'notifications.markAllRead', {})).toEqual({ ok: true, value: { updated: 0 } });
    expect(await dispatch(handlers, 'follow-requests.list', {})).toMatchObject({
      ok: true,
      value: { items: [{ followApId: `${aliceId()}#follows/1`, actor: { apId: aliceId() } }], nextCursor: null, count: 1 },
    });
    expect(await dispatch(handlers, 'follow-requests.list', { cursor: '0' })).toMatchObject({ ok: false, error: { code: 'bad_input' } });

    expect(await dispatch(handlers, 'notifications.markRead', { ids: [] })).toMatchObject({ ok: false, error: { code: 'bad_input' } });
    expect(await dispatch(handlers, 'notifications.list', { limit: 0 })).toMatchObject({ ok: false, error: { code: 'bad_input' } });
    expect(await dispatch(handlers, 'notifications.list', { offset: 10_001 })).toMatchObject({ ok: false, error: { code: 'bad_input' } });
    expect(await dispatch(handlers, 'notifications.list', { offset: 10_000 })).toMatchObject({ ok: true });
    expect(await dispatch(handlers, 'notifications.list', { limit: 10, extra: 1 })).toMatchObject({ ok: false, error: { code: 'bad_input' } });
  });
});

// Every one of the spec's notification types (and the typeless ended-poll row) through the API:
// those Mastodon has come out with Mastodon's type and a valid Notification entity, the others
// are left out, and types[] / exclude_types[] pick among them. Rows are written as the processors
// write them (the peer's actor row, posts made through the API).
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { NOTIFICATION_TYPES } from '../../../db/columns';
import { actor, notifications, outbox } from '../../../db/schema';
import * as S from './entity-schemas';
import { call, openMastodonRig, signIn, type MastodonRig } from './test-support';

let t: MastodonRig;
let token: string;
let statusId = '';
let pollId = '';
const list = async (query = '') => {
  const { status, json } = await call(t, token, 'GET', `/api/v1/notifications${query}`);
  expect(status).toBe(200);
  return z.array(S.Notification).parse(json);
};

beforeAll(async () => {
  t = await openMastodonRig();
  token = (await signIn(t, ['read', 'write'])).token;
  const db = t.rig.core.db;
  db.delete(notifications).run();
  const status = S.Status.parse((await call(t, token, 'POST', '/api/v1/statuses', { status: 'Liked' })).json);
  const poll = S.Status.parse((await call(t, token, 'POST', '/api/v1/statuses', { status: 'Which?', poll: { options: ['A', 'B'], expires_in: 600 } })).json);
  [statusId, pollId] = [status.id, poll.id];
  const rowOf = (uri: string) => db.select().from(outbox).where(eq(outbox.apId, uri)).get()!.id;
  const peer = db.select().from(actor).where(eq(actor.apId, t.peer.actorId)).get()!.id;
  const now = new Date();
  for (const type of NOTIFICATION_TYPES) {
    if (type === 'MENTION') continue; // needs a received post: masto.test.ts reads one
    const webmention = type.endsWith('WEBMENTION');
    db.insert(notifications).values({ createdAt: now, notificationType: type, isNew: true, actorId: webmention ? null : peer, outboxObjectId: rowOf(status.uri) }).run();
  }
  db.insert(notifications).values({ createdAt: now, notificationType: null, isNew: true, outboxObjectId: rowOf(poll.uri) }).run();
});
afterAll(async () => t.close());

describe('notification types', () => {
  it('the eleven other spec types and an ended poll: follow, favourite, reblog and poll shown; the rest left out', async () => {
    const all = await list();
    expect(all.map((n) => n.type).sort()).toEqual(['favourite', 'follow', 'poll', 'reblog']);
    const byType = new Map(all.map((n) => [n.type, n]));
    expect(byType.get('favourite')!.status!.id).toBe(statusId);
    expect(byType.get('reblog')!.status!.id).toBe(statusId);
    expect(byType.get('follow')!.status).toBeUndefined();
    // Our own poll ended: Mastodon names the poll's author, the account itself.
    expect(byType.get('poll')!.status!.id).toBe(pollId);
    expect(byType.get('poll')!.account.id).toBe('0');
    expect(byType.get('poll')!.status!.poll).not.toBeNull();
  });

  it('types[] and exclude_types[] pick among them; a type Tern never lists gives nothing', async () => {
    expect((await list('?types[]=poll')).map((n) => n.type)).toEqual(['poll']);
    expect((await list('?types[]=follow&types[]=poll')).map((n) => n.type).sort()).toEqual(['follow', 'poll']);
    expect((await list('?exclude_types[]=poll&exclude_types[]=follow')).map((n) => n.type).sort()).toEqual(['favourite', 'reblog']);
    expect(await list('?types[]=follow_request')).toEqual([]);
    expect(await list('?types[]=update')).toEqual([]);
  });

  it('grouped notifications carry the same types', async () => {
    const { json } = await call(t, token, 'GET', '/api/v2/notifications');
    expect((json as { notification_groups: { type: string }[] }).notification_groups.map((g) => g.type).sort()).toEqual(['favourite', 'follow', 'poll', 'reblog']);
  });
});

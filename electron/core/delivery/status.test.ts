// The Deliveries list survives a row it cannot read: a delivery whose date was written past the
// CHECK (which only a tool turning CHECKs off can do) is left out and reported, the rest listed.
// A post's delivery state counts its latest activity's rows, as the timeline shows it.
import { describe, expect, it } from 'vitest';
import { openSqlite, wrapDrizzle } from '../../../db/client';
import { setSkipLog } from '../../../db/readable-rows';
import { upgrade } from '../../../migrations/runner';
import { deliverySummaries, listDeliveries } from './status';

describe('listDeliveries', () => {
  it('leaves out a delivery whose date cannot be read, and lists the others', () => {
    const sqlite = openSqlite(':memory:');
    upgrade(sqlite);
    const insert = sqlite.prepare("INSERT INTO outgoing_activity (created_at, recipient, webmention_target, tries, is_sent, is_errored) VALUES (?, 'https://peer.example/inbox', 'https://peer.example/post', 0, 0, 0)");
    for (let i = 0; i < 3; i++) insert.run(`2025-01-0${i + 1}T00:00:00.000Z`);
    sqlite.pragma('ignore_check_constraints = ON');
    sqlite.exec("UPDATE outgoing_activity SET created_at = '2025-01-xxT00:00:00.000Z' WHERE id = 2");
    sqlite.pragma('ignore_check_constraints = OFF');
    const skipped: string[] = [];
    const previous = setSkipLog((m) => skipped.push(m));
    try {
      const view = listDeliveries(wrapDrizzle(sqlite), { limit: 10, state: 'all' }, { inFlight: new Set(), online: true });
      expect(view.items.map((r) => r.id)).toEqual([3, 1]);
      expect(skipped).toEqual(['skipped outgoing_activity row 2, which cannot be read: Invalid time value']);
    } finally {
      setSkipLog(previous);
      sqlite.close();
    }
  });
});

describe('deliverySummaries', () => {
  const sqlite = openSqlite(':memory:');
  upgrade(sqlite);
  const db = wrapDrizzle(sqlite);
  const post = (id: number, type: string, relatesTo: number | null = null) =>
    sqlite
      .prepare(
        `INSERT INTO outbox (id, created_at, updated_at, is_hidden_from_homepage, public_id, ap_type, ap_id, ap_object, ap_published_at,
           visibility, likes_count, announces_count, replies_count, is_pinned, is_deleted, relates_to_outbox_object_id)
         VALUES (?, '2025-01-01T00:00:00.000Z', '2025-01-01T00:00:00.000Z', 0, ?, ?, ?, '{}', '2025-01-01T00:00:00.000Z', 'PUBLIC', 0, 0, 0, 0, 0, ?)`,
      )
      .run(id, `p${id}`, type, `https://tern.example/o/${id}`, relatesTo);
  const row = (activity: number, state: { sent?: 1; errored?: 1; tries?: number; nextTry?: string; error?: string; webmention?: true }) =>
    Number(
      sqlite
        .prepare(
          `INSERT INTO outgoing_activity (created_at, recipient, outbox_object_id, webmention_target, tries, next_try, is_sent, is_errored, error)
           VALUES ('2025-01-01T00:00:00.000Z', 'https://peer.example/inbox', ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(activity, state.webmention ? 'https://peer.example/post' : null, state.tries ?? 0, state.nextTry ?? null, state.sent ?? 0, state.errored ?? 0, state.error ?? null).lastInsertRowid,
    );
  // 1: two sent, one given up, two waiting (one tried, with its reason), and a webmention (not a server).
  post(1, 'Note');
  row(1, { sent: 1 });
  row(1, { sent: 1, error: 'an old reason' });
  row(1, { errored: 1, error: 'Gone (410)' });
  const tried = row(1, { tries: 2, nextTry: '2025-01-02T10:00:00.000Z', error: 'No answer within 10000 ms' });
  row(1, { nextTry: '2025-01-02T09:00:00.000Z' });
  row(1, { webmention: true, error: 'not counted' });
  // 2: an edit sent to its two servers after the Create, so the Update is what counts; 3: an edit
  // nobody needed, so the Create's rows count; 4: nothing to send; 5: all given up.
  post(2, 'Note');
  row(2, { errored: 1, error: 'refused' });
  post(20, 'Update', 2);
  row(20, { sent: 1 });
  row(20, { sent: 1 });
  post(3, 'Note');
  row(3, { sent: 1 });
  post(30, 'Update', 3);
  post(4, 'Note');
  post(5, 'Note');
  row(5, { errored: 1 });
  row(5, { errored: 1, error: 'Forbidden (403)' });

  it('counts the latest activity’s rows, the soonest next try, the first reason of a waiting row, then of a given-up one', () => {
    const states = deliverySummaries(db, [1, 2, 3, 4, 5], { inFlight: new Set(), online: false });
    expect(states.get(1)).toEqual({ state: 'queued', activity: 'Create', total: 5, sent: 2, failed: 1, pending: 2, error: 'No answer within 10000 ms', nextTry: '2025-01-02T09:00:00.000Z' });
    expect(states.get(2)).toEqual({ state: 'sent', activity: 'Update', total: 2, sent: 2, failed: 0, pending: 0, error: null, nextTry: null });
    expect(states.get(3)).toMatchObject({ state: 'sent', activity: 'Create', total: 1, sent: 1 });
    expect(states.get(4)).toEqual({ state: 'local', activity: 'Create', total: 0, sent: 0, failed: 0, pending: 0, error: null, nextTry: null });
    expect(states.get(5)).toMatchObject({ state: 'failed', failed: 2, error: 'Forbidden (403)' });
  });

  it('is sending while a waiting row is in flight, or online once one was tried', () => {
    expect(deliverySummaries(db, [1], { inFlight: new Set([tried]), online: false }).get(1)?.state).toBe('sending');
    expect(deliverySummaries(db, [1], { inFlight: new Set(), online: true }).get(1)?.state).toBe('sending');
    // A row of another post in flight, or a sent one: not this post's.
    expect(deliverySummaries(db, [1], { inFlight: new Set([1, 7]), online: false }).get(1)?.state).toBe('queued');
  });
});

// Queueing deliveries: one row per distinct recipient, written in the caller's transaction, for
// any number of recipients (SQLite refuses one INSERT binding more than 32,766 values).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { asc, sql } from 'drizzle-orm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openCore, type Core } from '../core';
import { saveOutboxObject } from '../federation/outbox-store';
import { enqueueDeliveries, onDeliveriesQueued } from './queue';
import { outgoingActivity } from '../../../db/schema';

let dir: string;
let core: Core;
let postId: number;
const now = new Date('2030-01-01T00:00:00Z');

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tern-queue-'));
  core = await openCore({ dataDir: dir, mode: 'headless', clock: () => now });
  core.settings.update({ baseUrl: 'https://tern.example', username: 'alice' });
  postId = saveOutboxObject(core.db, core.identity()!, { apObject: { type: 'Note', content: 'hi' }, visibility: 'PUBLIC', now }).id;
});

afterEach(() => {
  core.close();
  rmSync(dir, { recursive: true, force: true });
});

const count = () => core.db.get<{ n: number; recipients: number }>(sql`SELECT count(*) AS n, count(DISTINCT recipient) AS recipients FROM outgoing_activity`);

describe('enqueueDeliveries', () => {
  it('queues a post to 5,000 distinct inboxes (more than one INSERT may bind), each once, due now', () => {
    const recipients = Array.from({ length: 5_000 }, (_, i) => `https://s${i}.example/users/f${i}/inbox`);
    let woken = 0;
    const off = onDeliveriesQueued(() => woken++);
    const n = core.db.transaction((tx) => enqueueDeliveries(tx, { outboxObjectId: postId, recipients: [...recipients, ...recipients.slice(0, 10)], now }));
    off();
    expect(n).toBe(5_000);
    expect(count()).toEqual({ n: 5_000, recipients: 5_000 });
    expect(woken).toBe(1);
    const due = core.db.get<{ n: number }>(sql`SELECT count(*) AS n FROM outgoing_activity WHERE is_sent = 0 AND is_errored = 0 AND tries = 0 AND next_try IS NOT NULL`);
    expect(due.n).toBe(5_000);
    // In the recipients' order (ids grow with it), each row as the loop reads it.
    const rows = core.db.select().from(outgoingActivity).orderBy(asc(outgoingActivity.id)).all();
    expect(rows.map((r) => r.recipient)).toEqual(recipients);
    expect(rows[0]).toMatchObject({ outboxObjectId: postId, inboxObjectId: null, webmentionTarget: null, tries: 0, isSent: false, isErrored: false, lastTry: null, error: null });
    expect(rows[0]!.createdAt.toISOString()).toBe(now.toISOString());
    expect(rows[0]!.nextTry?.toISOString()).toBe(now.toISOString());
  });

  it('writes nothing when the transaction fails after a later chunk', () => {
    const recipients = Array.from({ length: 1_200 }, (_, i) => `https://s${i}.example/inbox`);
    expect(() =>
      core.db.transaction((tx) => {
        enqueueDeliveries(tx, { outboxObjectId: postId, recipients, now });
        throw new Error('the post could not be stored');
      }),
    ).toThrow('the post could not be stored');
    expect(count().n).toBe(0);
  });

  it('refuses a row with both or neither of its sources', () => {
    expect(() => enqueueDeliveries(core.db, { recipients: ['https://a.example/inbox'], now })).toThrow(TypeError);
    expect(count().n).toBe(0);
  });
});

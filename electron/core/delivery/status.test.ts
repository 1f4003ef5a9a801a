// The Deliveries list survives a row it cannot read: a delivery whose date was written past the
// CHECK (which only a tool turning CHECKs off can do) is left out and reported, the rest listed.
import { describe, expect, it } from 'vitest';
import { openSqlite, wrapDrizzle } from '../../../db/client';
import { setSkipLog } from '../../../db/readable-rows';
import { upgrade } from '../../../migrations/runner';
import { listDeliveries } from './status';

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

// Poll tallies are counted from poll_answer, the rows themselves, never nudged by ±1 (reference
// §13.9): how many distinct actors voted and how many chose each option. The count is written
// into our Question's stored object, so the listener's /o/<id> shows it at once; telling other
// servers is the broadcaster's job (broadcast.ts), at most once per short window.
import { prepared, type DbOrTx } from '../../../../db/client';
import type { OutboxObject } from '../../../../db/schema';
import type { Json } from '../ap';
import { withTallies, type Tallies } from './question';

export function countVotes(db: DbOrTx, outboxObjectId: number): Tallies {
  const voters =
    prepared<[number], number>(db, 'SELECT count(DISTINCT actor_id) FROM poll_answer WHERE outbox_object_id = ?').pluck().get(outboxObjectId) ?? 0;
  const rows = prepared<[number], { name: string; n: number }>(
    db,
    'SELECT name, count(*) AS n FROM poll_answer WHERE outbox_object_id = ? GROUP BY name',
  ).all(outboxObjectId);
  return { votersCount: voters, byOption: new Map(rows.map((r) => [r.name, r.n])) };
}

/** Rewrites the Question's tallies from poll_answer; returns the new object. Raw SQL, prepared
 * once per connection: this runs for every vote (drizzle would prepare it each time). */
export function recountPoll(db: DbOrTx, question: OutboxObject, now: Date): Json {
  const object = withTallies(question.apObject as Json, countVotes(db, question.id));
  prepared(db, 'UPDATE outbox SET ap_object = ?, updated_at = ? WHERE id = ?').run(JSON.stringify(object), now.toISOString(), question.id);
  return object;
}

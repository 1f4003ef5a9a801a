// What the status line says waits to be sent: the author's posts and other actions that have a
// delivery not sent yet, each once however many servers it goes to (UX.md: "3 posts waiting to
// send"), beside the deliveries themselves.
import { expect, it } from 'vitest';
import { openSqlite, wrapDrizzle } from '../../../db/client';
import { upgrade } from '../../../migrations/runner';
import { waitingToSend } from './status';

const T = '2025-01-01T00:00:00.000Z';

function openQueue() {
  const sqlite = openSqlite(':memory:');
  upgrade(sqlite);
  const outbox = sqlite.prepare(
    `INSERT INTO outbox (created_at, updated_at, is_hidden_from_homepage, public_id, ap_type, ap_id, ap_object, ap_published_at, visibility,
       likes_count, announces_count, replies_count, is_pinned, is_deleted)
     VALUES (?, ?, 0, ?, ?, ?, '{}', ?, 'PUBLIC', 0, 0, 0, 0, 0)`,
  );
  let n = 0;
  const object = (type: string) => Number(outbox.run(T, T, `p${++n}`, type, `https://me.example/o/${n}`, T).lastInsertRowid);
  const delivery = sqlite.prepare(
    'INSERT INTO outgoing_activity (created_at, recipient, outbox_object_id, tries, is_sent, is_errored) VALUES (?, ?, ?, ?, ?, ?)',
  );
  const deliver = (outboxObjectId: number | null, servers: number, state: { sent?: boolean; errored?: boolean; tries?: number } = {}) => {
    for (let i = 0; i < servers; i++) delivery.run(T, `https://s${i}.example/inbox`, outboxObjectId, state.tries ?? 0, state.sent ? 1 : 0, state.errored ? 1 : 0);
  };
  return { db: wrapDrizzle(sqlite), object, deliver };
}

it('counts each post and each other action once, whatever the number of servers; sent and given-up rows are not waiting', () => {
  const { db, object, deliver } = openQueue();
  expect(waitingToSend(db)).toEqual({ deliveries: 0, posts: 0, other: 0 });

  const note = object('Note');
  const article = object('Article');
  const poll = object('Question');
  deliver(note, 40);
  deliver(article, 3, { tries: 2 }); // being retried: still waiting
  deliver(poll, 2);
  expect(waitingToSend(db)).toEqual({ deliveries: 45, posts: 3, other: 0 });

  const like = object('Like');
  const follow = object('Follow');
  deliver(like, 1);
  deliver(follow, 1);
  deliver(null, 1); // a row that names no object of ours (a forward): one action of its own
  expect(waitingToSend(db)).toEqual({ deliveries: 48, posts: 3, other: 3 });

  const sent = object('Note');
  deliver(sent, 5, { sent: true });
  const failed = object('Note');
  deliver(failed, 2, { errored: true });
  expect(waitingToSend(db)).toEqual({ deliveries: 48, posts: 3, other: 3 });
});

// Received posts written straight into Tern's database as the inbox processor stores them (one
// actor, one inbox row each), for the e2e tests and the renderer bench that start from them
// without a peer. Run before the page asks for them; Tern reads the rows at each request.
import Database from 'better-sqlite3';
import { join } from 'node:path';

export const PEER_ACTOR = 'https://peer.example/users/ann';

/** A Note by PEER_ACTOR; `n` orders them (the higher, the newer). */
export function peerNote(n: number, extra: Record<string, unknown> = {}): Record<string, unknown> & { id: string; published: string } {
  const published = new Date(Date.UTC(2025, 0, 1) + n * 60_000).toISOString();
  return { id: `https://peer.example/notes/${n}`, type: 'Note', attributedTo: PEER_ACTOR, content: `<p>post number ${n}</p>`, published, ...extra };
}

/** Stores PEER_ACTOR and `objects` (each with its id and published date) as received posts. */
export function storeReceived(dataDir: string, objects: readonly (Record<string, unknown> & { id: string; published: string })[]): void {
  const db = new Database(join(dataDir, 'tern.db'));
  try {
    db.prepare(`INSERT INTO actor (id, created_at, updated_at, ap_id, ap_actor, ap_type, handle) VALUES (1, ?, ?, ?, ?, 'Person', '@ann@peer.example')`).run(
      '2025-01-01T00:00:00Z',
      '2025-01-01T00:00:00Z',
      PEER_ACTOR,
      JSON.stringify({ id: PEER_ACTOR, type: 'Person', preferredUsername: 'ann', inbox: `${PEER_ACTOR}/inbox` }),
    );
    const insert = db.prepare(
      `INSERT INTO inbox (id, created_at, updated_at, actor_id, server, is_hidden_from_stream, ap_actor_id, ap_type, ap_id,
         ap_published_at, ap_object, visibility, is_bookmarked, is_deleted, is_transient, replies_count)
       VALUES (?, ?, ?, 1, 'peer.example', 0, ?, 'Note', ?, ?, ?, 'PUBLIC', 0, 0, 0, 0)`,
    );
    db.transaction(() => {
      objects.forEach((object, i) => insert.run(i + 1, object.published, object.published, PEER_ACTOR, object.id, object.published, JSON.stringify(object)));
    })();
  } finally {
    db.close();
  }
}

/** A MENTION notification (read) for each of the received posts 1..count, in their order. */
export function storeMentions(dataDir: string, count: number): void {
  const db = new Database(join(dataDir, 'tern.db'));
  try {
    const insert = db.prepare(`INSERT INTO notifications (id, created_at, notification_type, is_new, actor_id, inbox_object_id) VALUES (?, ?, 'MENTION', 0, 1, ?)`);
    db.transaction(() => {
      for (let i = 1; i <= count; i++) insert.run(i, new Date(Date.UTC(2025, 0, 1) + i * 60_000).toISOString(), i);
    })();
  } finally {
    db.close();
  }
}

/** `count` followers of the author (`authorId`, their actor id: the object of the Follows), each a Person of
 * its own server whose Follow was accepted, in order (follower 1 first; the People list shows
 * the newest first). Actor and Follow ids from 1,001. */
export function storeFollowers(dataDir: string, authorId: string, count: number): void {
  const db = new Database(join(dataDir, 'tern.db'));
  try {
    const actor = db.prepare(`INSERT INTO actor (id, created_at, updated_at, ap_id, ap_actor, ap_type, handle) VALUES (?, ?, ?, ?, ?, 'Person', ?)`);
    const follow = db.prepare(
      `INSERT INTO inbox (id, created_at, updated_at, actor_id, server, is_hidden_from_stream, ap_actor_id, ap_type, ap_id,
         ap_published_at, ap_object, activity_object_ap_id, visibility, is_bookmarked, is_deleted, is_transient, replies_count)
       VALUES (?, ?, ?, ?, ?, 1, ?, 'Follow', ?, ?, ?, ?, 'DIRECT', 0, 0, 0, 0)`,
    );
    const follower = db.prepare(`INSERT INTO follower (created_at, updated_at, actor_id, inbox_object_id, ap_actor_id) VALUES (?, ?, ?, ?, ?)`);
    db.transaction(() => {
      for (let i = 1; i <= count; i++) {
        const at = new Date(Date.UTC(2025, 0, 1) + i * 60_000).toISOString();
        const server = `follower${i}.example`;
        const apId = `https://${server}/users/f${i}`;
        const id = 1_000 + i;
        actor.run(id, at, at, apId, JSON.stringify({ id: apId, type: 'Person', preferredUsername: `f${i}`, name: `Follower ${i}`, inbox: `${apId}/inbox` }), `@f${i}@${server}`);
        const followId = `${apId}#follow`;
        follow.run(id, at, at, id, server, apId, followId, at, JSON.stringify({ id: followId, type: 'Follow', actor: apId, object: authorId }), authorId);
        follower.run(at, at, id, id, apId);
      }
    })();
  } finally {
    db.close();
  }
}

/** A received webmention for each post (`posts`: the author's, by outbox id and ap id), from a
 * page of its own (https://blog{n}.example/reply), in order. */
export function storeWebmentions(dataDir: string, posts: readonly { id: number; apId: string }[]): void {
  const db = new Database(join(dataDir, 'tern.db'));
  try {
    const insert = db.prepare(`INSERT INTO webmention (created_at, is_deleted, source, source_microformats, target, outbox_object_id) VALUES (?, 0, ?, NULL, ?, ?)`);
    db.transaction(() => {
      posts.forEach((post, i) => insert.run(new Date(Date.UTC(2025, 0, 1) + i * 60_000).toISOString(), `https://blog${i + 1}.example/reply`, post.apId, post.id));
    })();
  } finally {
    db.close();
  }
}

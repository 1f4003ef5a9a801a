// Who may fetch an upload from the listener: the visibility rule of the posts it is attached
// to (federation/object-access). A file attached to a live public or unlisted post is public;
// one attached only to followers-only or direct posts is served to a signed GET from an actor
// who may read one of those posts (Mastodon fetches media unsigned, so its users do not get
// these files — better than giving them to everyone who has the link); a file attached to no
// live post (deleted, never posted) is served to nobody — except the author's current picture
// and header image (`profileHashes`, from the settings), which are public whatever posts say.
// An upload's existence is never revealed.
import { and, eq } from 'drizzle-orm';
import type { DbOrTx } from '../../../db/client';
import { outbox, outboxObjectAttachment, upload, type OutboxObject, type Upload } from '../../../db/schema';
import { canView } from '../federation/object-access';

export type MediaAccess = { kind: 'public'; upload: Upload } | { kind: 'restricted'; upload: Upload; posts: OutboxObject[] } | { kind: 'none' };

export function mediaAccess(db: DbOrTx, hash: string, profileHashes: readonly string[] = []): MediaAccess {
  if (profileHashes.includes(hash)) {
    const row = db.select().from(upload).where(eq(upload.contentHash, hash)).get();
    if (row !== undefined) return { kind: 'public', upload: row };
  }
  const rows = db
    .select({ upload, post: outbox })
    .from(upload)
    .innerJoin(outboxObjectAttachment, eq(outboxObjectAttachment.uploadId, upload.id))
    .innerJoin(outbox, eq(outbox.id, outboxObjectAttachment.outboxObjectId))
    .where(and(eq(upload.contentHash, hash), eq(outbox.isDeleted, false)))
    .all();
  const first = rows[0];
  if (!first) return { kind: 'none' };
  if (rows.some((r) => r.post.visibility === 'PUBLIC' || r.post.visibility === 'UNLISTED')) return { kind: 'public', upload: first.upload };
  return { kind: 'restricted', upload: first.upload, posts: rows.map((r) => r.post) };
}

/** Whether `viewer` (a verified actor id) may read one of the posts a restricted file is on. */
export function mayFetch(db: DbOrTx, access: MediaAccess, viewer: string | null): boolean {
  if (access.kind === 'public') return true;
  if (access.kind === 'none' || viewer === null) return false;
  return access.posts.some((post) => canView(db, post, viewer));
}

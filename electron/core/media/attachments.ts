// Uploads attached to the author's posts: the rows of outbox_object_attachment (filename and
// alt text per post), the ActivityPub attachment objects (Image or Document, with mediaType,
// url, name = alt text, blurhash, width, height — what Mastodon reads), the public URLs the
// listener serves them at, and what happens to uploads when a post goes away.
import { rmSync } from 'node:fs';
import { and, eq, inArray, lt, notExists, notInArray } from 'drizzle-orm';
import type { DbOrTx } from '../../../db/client';
import { outboxObjectAttachment, upload, type JsonValue, type Upload } from '../../../db/schema';
import { BadInputError } from '../errors';
import type { LocalActor } from '../federation/identity';
import { isImageType } from './limits';
import { thumbnailPath, uploadPath } from './store';

export interface AttachmentInput {
  uploadId: number;
  /** Alt text; null or blank: none. */
  alt?: string | null;
  /** The author's file name; shown in the public URL (cosmetic, as microblog.pub). */
  filename?: string | null;
}

export interface ResolvedAttachment {
  upload: Upload;
  alt: string | null;
  filename: string;
}

/** Public URL of an upload: /media/<hash>/<filename> (the file name is cosmetic). */
export const mediaUrl = (local: LocalActor, hash: string, filename: string): string =>
  `${local.baseUrl}/media/${hash}/${encodeURIComponent(filename)}`;
export const thumbnailUrl = (local: LocalActor, hash: string): string => `${local.baseUrl}/media/thumbnails/${hash}`;

const EXTENSIONS: Record<string, string> = {
  'image/jpeg': 'jpg',
  'image/png': 'png',
  'image/webp': 'webp',
  'image/gif': 'gif',
  'image/avif': 'avif',
  'video/mp4': 'mp4',
  'video/webm': 'webm',
  'video/ogg': 'ogv',
  'video/quicktime': 'mov',
  'audio/mpeg': 'mp3',
  'audio/ogg': 'ogg',
  'audio/wav': 'wav',
  'audio/flac': 'flac',
  'audio/mp4': 'm4a',
  'audio/webm': 'weba',
};

/** A file name safe in a URL path segment and a header: no folders, no control characters. */
export function cleanFilename(name: string | null | undefined, contentType: string): string {
  const base = (name ?? '').split(/[\\/]/).pop() ?? '';
  // eslint-disable-next-line no-control-regex
  const cleaned = base.replace(/[\u0000-\u001f\u007f"<>]/g, '').trim().slice(-120);
  return cleaned.replace(/^\.+/, '') || `file.${EXTENSIONS[contentType] ?? 'bin'}`;
}

/** The uploads named by a post's input, in order; an unknown id is refused. */
export function resolveAttachments(db: DbOrTx, inputs: readonly AttachmentInput[]): ResolvedAttachment[] {
  if (inputs.length === 0) return [];
  const ids = [...new Set(inputs.map((i) => i.uploadId))];
  const found = new Map(db.select().from(upload).where(inArray(upload.id, ids)).all().map((u) => [u.id, u]));
  return inputs.map((input) => {
    const row = found.get(input.uploadId);
    if (!row) throw new BadInputError('An attached file is no longer there; please attach it again.');
    return { upload: row, alt: input.alt?.trim() || null, filename: cleanFilename(input.filename, row.contentType) };
  });
}

/** The attachment objects of a post (reference §9, plus Mastodon's blurhash/width/height). */
export function toApAttachments(local: LocalActor, items: readonly ResolvedAttachment[]): JsonValue[] {
  return items.map(({ upload: u, alt, filename }) => {
    const out: Record<string, JsonValue> = {
      type: isImageType(u.contentType) ? 'Image' : 'Document',
      mediaType: u.contentType,
      url: mediaUrl(local, u.contentHash, filename),
    };
    if (alt) out.name = alt;
    if (u.blurhash) out.blurhash = u.blurhash;
    if (u.width !== null && u.height !== null) {
      out.width = u.width;
      out.height = u.height;
    }
    return out;
  });
}

export function linkAttachments(tx: DbOrTx, outboxObjectId: number, items: readonly ResolvedAttachment[], now: Date): void {
  if (items.length === 0) return;
  tx.insert(outboxObjectAttachment)
    .values(items.map((i) => ({ createdAt: now, outboxObjectId, uploadId: i.upload.id, filename: i.filename, alt: i.alt })))
    .run();
}

/**
 * A deleted post lets go of its files: its attachment rows are removed, and so is every upload
 * of it that no other post uses (row now, files by `removeFiles` once the transaction has
 * committed). Uploads other posts use are kept.
 */
export function detachPost(tx: DbOrTx, outboxObjectId: number, keep: readonly number[] = []): { removeFiles(uploadsDir: string): void } {
  const mine = tx
    .select({ uploadId: outboxObjectAttachment.uploadId })
    .from(outboxObjectAttachment)
    .where(eq(outboxObjectAttachment.outboxObjectId, outboxObjectId))
    .all()
    .map((r) => r.uploadId);
  if (mine.length === 0) return { removeFiles: () => {} };
  tx.delete(outboxObjectAttachment).where(eq(outboxObjectAttachment.outboxObjectId, outboxObjectId)).run();
  const stillUsed = tx
    .select({ uploadId: outboxObjectAttachment.uploadId })
    .from(outboxObjectAttachment)
    .where(inArray(outboxObjectAttachment.uploadId, mine))
    .all()
    .map((r) => r.uploadId)
    .concat(keep);
  const unused = tx
    .delete(upload)
    .where(and(inArray(upload.id, mine), stillUsed.length > 0 ? notInArray(upload.id, stillUsed) : undefined))
    .returning({ hash: upload.contentHash })
    .all();
  return {
    removeFiles(uploadsDir) {
      for (const { hash } of unused) {
        rmSync(uploadPath(uploadsDir, hash), { force: true });
        rmSync(thumbnailPath(uploadsDir, hash), { force: true });
      }
    },
  };
}

/**
 * Uploads no post ever used (Compose abandoned, the file removed before posting) are deleted
 * once older than `before`, rows and files; `keep` are ids handed out recently (an old row
 * found again by its hash). Returns how many went.
 */
export function sweepUnattached(db: DbOrTx, uploadsDir: string, before: Date, keep: ReadonlySet<number>): number {
  const unused = db
    .select({ id: upload.id })
    .from(upload)
    .where(and(lt(upload.createdAt, before), unattached(db)))
    .all()
    .filter((u) => !keep.has(u.id));
  return removeUnattached(db, uploadsDir, unused.map((u) => u.id));
}

const unattached = (db: DbOrTx) =>
  notExists(db.select({ one: outboxObjectAttachment.id }).from(outboxObjectAttachment).where(eq(outboxObjectAttachment.uploadId, upload.id)));

/**
 * Removes the uploads `ids` that no post uses, rows and files (a request refused after its
 * files were stored leaves nothing behind); one a post uses meanwhile is kept. Returns how many went.
 */
export function removeUnattached(db: DbOrTx, uploadsDir: string, ids: readonly number[], keep: readonly number[] = []): number {
  const candidates = ids.filter((id) => !keep.includes(id));
  if (candidates.length === 0) return 0;
  const gone = db
    .delete(upload)
    .where(and(inArray(upload.id, candidates), unattached(db)))
    .returning({ hash: upload.contentHash })
    .all();
  for (const { hash } of gone) {
    rmSync(uploadPath(uploadsDir, hash), { force: true });
    rmSync(thumbnailPath(uploadsDir, hash), { force: true });
  }
  return gone.length;
}

// Uploads on disk and in the `upload` table. Content-addressed: the name of a file is the
// SHA-256 of the bytes the author gave (microblog.pub uses BLAKE2b-256 the same way), so the
// same file twice is one row and one file. Files live in the data folder's uploads/ (which
// backups include) as `<hash>` and `<hash>_resized` (the WebP thumbnail), microblog.pub's layout.
//
// Nothing is half-stored: every check and all decoding happen first; files are written under
// temporary names and renamed into place; the row is written last, and a failure removes
// whatever this call wrote. Files that come in pieces (saveUploadFile) are never held in one
// buffer: their type and size are checked on their first bytes, then they are written to a
// temporary file and hashed on the way, and an image is decoded from that file.
import { createHash, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { open, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isTemporaryFile } from './temporary-files';
import { eq } from 'drizzle-orm';
import type { DbOrTx } from '../../../db/client';
import { upload, type Upload } from '../../../db/schema';
import { MediaRejectedError } from './errors';
import { blankMp4Metadata, bufferAccess, fileAccess, throughWindow, type RandomAccess } from './container-metadata';
import { blankFlacMetadata } from './flac-metadata';
import { blankMatroskaMetadata } from './matroska-metadata';
import { blankMp3Metadata } from './mp3-metadata';
import { blankOggMetadata } from './ogg-metadata';
import { blankWavMetadata } from './wav-metadata';
import { processImage } from './image';
import { isImageType, isMediaType, maxBytesFor, type AvType, type MediaType } from './limits';
import { bytesMatch } from './sniff';

export interface UploadDeps {
  db: DbOrTx;
  uploadsDir: string;
  clock: () => Date;
}

const HASH = /^[0-9a-f]{64}$/;
export const isContentHash = (s: string): boolean => HASH.test(s);

export const uploadPath = (dir: string, hash: string): string => join(dir, hash);
export const thumbnailPath = (dir: string, hash: string): string => join(dir, `${hash}_resized`);

export function contentHashOf(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

const sizeText = (bytes: number) => `${Math.round(bytes / (1024 * 1024))} MB`;

/** Other names browsers and systems give the same types. */
const ALIASES: Record<string, MediaType> = {
  'image/jpg': 'image/jpeg',
  'image/pjpeg': 'image/jpeg',
  'audio/mp3': 'audio/mpeg',
  'audio/x-m4a': 'audio/mp4',
  'audio/m4a': 'audio/mp4',
  'audio/x-wav': 'audio/wav',
  'audio/wave': 'audio/wav',
  'audio/vnd.wave': 'audio/wav',
  'audio/x-flac': 'audio/flac',
};

/** The declared type (or its usual name), if Tern accepts it at all. */
export function acceptedType(declared: string): MediaType {
  if (isMediaType(declared)) return declared;
  const alias = ALIASES[declared];
  if (alias) return alias;
  throw new MediaRejectedError('unsupported_type', 'Tern can attach JPEG, PNG, WebP, GIF and AVIF images, and MP4, WebM, Ogg, MP3, WAV or FLAC video and audio.');
}

/** Refuses a size over the cap of the type (or nothing at all). */
export function checkSize(type: MediaType, size: number): void {
  if (size === 0) throw new MediaRejectedError('empty', 'This file is empty.');
  const cap = maxBytesFor(type);
  if (size > cap) throw new MediaRejectedError('too_large', `This file is too large: ${isImageType(type) ? 'images' : 'video and audio'} can be at most ${sizeText(cap)}.`);
}

/** Refuses what cannot be an acceptable upload of `declared`, before anything is decoded: its
 * size, and its first bytes (`head`, all of it or at least its first SNIFF_BYTES). */
export function checkUpload(head: Uint8Array, declaredType: string, size = head.byteLength): MediaType {
  // The stored type is the accepted name (audio/x-m4a is stored as audio/mp4).
  const declared = acceptedType(declaredType);
  checkSize(declared, size);
  if (!bytesMatch(head, declared)) {
    throw new MediaRejectedError('type_mismatch', `This file is not the ${declared.split('/')[1]?.toUpperCase()} ${declared.split('/')[0]} it claims to be.`);
  }
  return declared;
}

/** The first bytes read to check a file's type: sniff.ts reads no further than 256. */
export const SNIFF_BYTES = 4096;

async function writeAtomically(path: string, bytes: Uint8Array): Promise<void> {
  const tmp = `${path}.${randomUUID()}.tmp`;
  try {
    await writeFile(tmp, bytes, { mode: 0o600 });
    await rename(tmp, path);
  } catch (error) {
    await rm(tmp, { force: true });
    throw error;
  }
}

export function findUploadByHash(db: DbOrTx, hash: string): Upload | undefined {
  return db.select().from(upload).where(eq(upload.contentHash, hash)).get();
}

/** Checks, cleans and stores an upload; the same bytes again return the stored row. */
export async function saveUpload(deps: UploadDeps, input: { bytes: Uint8Array; contentType: string }): Promise<Upload> {
  const type = checkUpload(input.bytes, input.contentType);
  const buffer = Buffer.from(input.bytes.buffer, input.bytes.byteOffset, input.bytes.byteLength);
  return (await persist(deps, type, contentHashOf(input.bytes), { bytes: buffer })).upload;
}

/**
 * A file that came in pieces, each as it arrived and never copied again: the window's chunks as
 * they were decoded (sessions.ts), or a multipart part's subarrays of its socket chunks
 * (listener/multipart.ts). The list is emptied as the pieces are written, so that each piece's
 * memory can go as soon as it is on disk, before an image is decoded.
 */
export type IncomingFile = Uint8Array[];

const sizeOf = (file: IncomingFile): number => file.reduce((n, piece) => n + piece.byteLength, 0);

/** The first `n` bytes of a file (all of it if shorter): a copy of at most `n` bytes. */
export function headOf(file: IncomingFile, n: number): Uint8Array {
  const head = new Uint8Array(Math.min(n, sizeOf(file)));
  let at = 0;
  for (const piece of file) {
    if (at === head.byteLength) break;
    const part = piece.subarray(0, head.byteLength - at);
    head.set(part, at);
    at += part.byteLength;
  }
  return head;
}

/**
 * saveUpload for a file that came in pieces: refused on its size and first bytes before anything
 * else; then written, piece by piece, to a temporary file in the uploads folder while it is
 * hashed. A video is renamed into place from there, and sharp reads an image from there too:
 * from the file, libvips reads on its own threads what each decode needs, while from memory
 * sharp wants one Buffer, which the pieces would have to be copied into (or read back from the
 * file into) on the main thread, and which would be held, with the pieces, while the image is
 * decoded. (libvips maps the file once per pipeline, so RSS counts its pages up to twice; they
 * are the page cache's, which holds the just-written file anyway: bench/upload-copies.ts shows
 * 19–41 MiB less anonymous memory for a 14 MiB JPEG.) Whole, a 65 MiB file cost 100 ms to copy
 * into one buffer and 60 ms to hash, each in one piece.
 * `created`: whether this call stored it (else the same bytes were stored before).
 */
export async function saveUploadFile(deps: UploadDeps, input: { file: IncomingFile; contentType: string }): Promise<{ upload: Upload; created: boolean }> {
  const type = checkUpload(headOf(input.file, SNIFF_BYTES), input.contentType, sizeOf(input.file));
  mkdirSync(deps.uploadsDir, { recursive: true, mode: 0o700 });
  const incoming = join(deps.uploadsDir, `incoming-${randomUUID()}.tmp`);
  try {
    const hash = createHash('sha256');
    const handle = await open(incoming, 'w', 0o600);
    try {
      for (let piece = input.file.shift(); piece !== undefined; piece = input.file.shift()) {
        hash.update(piece);
        await handle.write(piece);
      }
    } finally {
      await handle.close();
    }
    return await persist(deps, type, hash.digest('hex'), { path: incoming });
  } finally {
    await rm(incoming, { force: true });
  }
}

/** How each container's metadata is blanked in place (container-metadata.ts and its siblings). */
export const BLANK_METADATA: Record<AvType, (file: RandomAccess) => Promise<number>> = {
  'video/mp4': blankMp4Metadata,
  'video/quicktime': blankMp4Metadata,
  'audio/mp4': blankMp4Metadata,
  'video/webm': blankMatroskaMetadata,
  'audio/webm': blankMatroskaMetadata,
  'video/ogg': blankOggMetadata,
  'audio/ogg': blankOggMetadata,
  'audio/mpeg': blankMp3Metadata,
  'audio/wav': blankWavMetadata,
  'audio/flac': blankFlacMetadata,
};

/** The upload with its container's metadata blanked: a copy of bytes, or the incoming temporary
 * file itself (its own, about to be renamed into place). */
async function withoutAvMetadata(type: AvType, original: { bytes: Buffer } | { path: string }): Promise<{ bytes: Buffer } | { path: string }> {
  const blank = BLANK_METADATA[type];
  if ('bytes' in original) {
    const bytes = Buffer.from(original.bytes);
    await throughWindow(bufferAccess(bytes), blank);
    return { bytes };
  }
  const handle = await open(original.path, 'r+');
  try {
    await throughWindow(await fileAccess(handle), blank);
  } finally {
    await handle.close();
  }
  return original;
}

/** Stores checked bytes (or a checked file, moved into place) under their hash. */
async function persist(deps: UploadDeps, type: MediaType, hash: string, original: { bytes: Buffer } | { path: string }): Promise<{ upload: Upload; created: boolean }> {
  const existing = findUploadByHash(deps.db, hash);
  if (existing && existsSync(uploadPath(deps.uploadsDir, hash))) return { upload: existing, created: false };

  const image = isImageType(type) ? await processImage('bytes' in original ? original.bytes : original.path, type) : null;
  // A video or a recording keeps its frames and sound but not where it was made, nor its tags.
  if (!isImageType(type)) original = await withoutAvMetadata(type, original);

  mkdirSync(deps.uploadsDir, { recursive: true, mode: 0o700 });
  const written: string[] = [];
  try {
    // The cleaned image, or else the original as it came (a GIF, a video).
    const files: [string, Uint8Array | { path: string }][] = [[uploadPath(deps.uploadsDir, hash), image?.bytes ?? ('bytes' in original ? original.bytes : original)]];
    if (image) files.push([thumbnailPath(deps.uploadsDir, hash), image.thumbnail]);
    for (const [path, content] of files) {
      if (existsSync(path)) continue; // same hash, same content: written by an earlier upload
      if ('path' in content) await rename(content.path, path);
      else await writeAtomically(path, content);
      written.push(path);
    }
    if (existing) return { upload: existing, created: false };
    const inserted = deps.db
      .insert(upload)
      .values({
        createdAt: deps.clock(),
        contentType: type,
        contentHash: hash,
        hasThumbnail: image !== null,
        blurhash: image?.blurhash ?? null,
        width: image?.width ?? null,
        height: image?.height ?? null,
      })
      .onConflictDoNothing()
      .returning()
      .get();
    return inserted ? { upload: inserted, created: true } : { upload: findUploadByHash(deps.db, hash)!, created: false };
  } catch (error) {
    for (const path of written) rmSync(path, { force: true });
    throw error;
  }
}

const STORED_FILE = /^([0-9a-f]{64})(_resized)?$/;

/**
 * Removes the files of uploads that have no row: a process killed after an upload's files were
 * renamed into place and before its row was written leaves them (the row is written last, so
 * a row never names a missing file), or while a file was still arriving (its temporary file).
 * Run at start, when no upload is in flight. Returns how many files were removed.
 */
export function removeOrphanFiles(db: DbOrTx, uploadsDir: string): number {
  if (!existsSync(uploadsDir)) return 0;
  const names = readdirSync(uploadsDir);
  if (names.length === 0) return 0;
  const known = new Set(db.select({ hash: upload.contentHash }).from(upload).all().map((u) => u.hash));
  let removed = 0;
  for (const name of names) {
    const hash = STORED_FILE.exec(name)?.[1];
    if (!isTemporaryFile(name) && (hash === undefined || known.has(hash))) continue;
    rmSync(join(uploadsDir, name), { force: true });
    removed++;
  }
  return removed;
}


// The upload pipeline with real SQLite and real sharp: what is stored for each kind of file,
// and that every refused file leaves nothing behind (no row, no file).
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import sharp from 'sharp';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { openSqlite, wrapDrizzle, type Db, type Sqlite } from '../../../db/client';
import { upload, type Upload } from '../../../db/schema';
import { upgrade } from '../../../migrations/runner';
import { MediaRejectedError } from './errors';
import { MAX_IMAGE_BYTES } from './limits';
import { contentHashOf, removeOrphanFiles, saveUpload, saveUploadFile, SNIFF_BYTES, thumbnailPath, uploadPath, type UploadDeps } from './store';
import { createMediaService } from './service';
import { UploadedFile } from './uploaded-file';
import { multipartReader } from '../listener/multipart';
import { decodeBody, type DecodedBody } from '../listener/request-body';
import { photo, pngBomb, sidewaysJpegWithGps } from './test-images';

let dir: string;
let sqlite: Sqlite;
let db: Db;
let deps: UploadDeps;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'tern-media-'));
  sqlite = openSqlite(join(dir, 'tern.db'));
  upgrade(sqlite);
  db = wrapDrizzle(sqlite);
  deps = { db, uploadsDir: join(dir, 'uploads'), clock: () => new Date('2026-01-02T03:04:05Z') };
});

afterEach(() => {
  sqlite.close();
  rmSync(dir, { recursive: true, force: true });
});

const files = () => {
  try {
    return readdirSync(deps.uploadsDir);
  } catch {
    return [];
  }
};
const rows = () => db.select().from(upload).all();

async function refusal(bytes: Uint8Array, contentType: string): Promise<MediaRejectedError> {
  const error = await saveUpload(deps, { bytes, contentType }).then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(MediaRejectedError);
  expect(rows()).toEqual([]);
  expect(files()).toEqual([]);
  return error as MediaRejectedError;
}

describe('storing images', () => {
  it('a JPEG: EXIF and GPS are stripped, the orientation is applied, with size, blurhash and a WebP thumbnail', async () => {
    const original = await sidewaysJpegWithGps(64, 32);
    expect((await sharp(original).metadata()).exif).toBeDefined();
    const row = await saveUpload(deps, { bytes: original, contentType: 'image/jpeg' });
    expect(row).toMatchObject({ contentType: 'image/jpeg', contentHash: contentHashOf(original), hasThumbnail: true, width: 32, height: 64 });
    expect(row.blurhash).toMatch(/^[0-9A-Za-z#$%*+,-.:;=?@[\]^_{|}~]{20,}$/);
    const stored = readFileSync(uploadPath(deps.uploadsDir, row.contentHash));
    const meta = await sharp(stored).metadata();
    expect(meta).toMatchObject({ format: 'jpeg', width: 32, height: 64 });
    expect(meta.exif).toBeUndefined();
    expect(meta.orientation).toBeUndefined();
    expect(stored.includes(Buffer.from('TernCam'))).toBe(false);
    const thumb = await sharp(readFileSync(thumbnailPath(deps.uploadsDir, row.contentHash))).metadata();
    expect(thumb).toMatchObject({ format: 'webp', width: 32, height: 64 });
  });

  it('a large image gets a thumbnail that fits in 740 × 740', async () => {
    const row = await saveUpload(deps, { bytes: await photo(1600, 900, 'png'), contentType: 'image/png' });
    expect(row).toMatchObject({ width: 1600, height: 900 });
    const thumb = await sharp(readFileSync(thumbnailPath(deps.uploadsDir, row.contentHash))).metadata();
    expect([thumb.width, thumb.height]).toEqual([740, 416]);
  });

  it.each(['png', 'webp', 'gif', 'avif'] as const)('a %s is stored in its own format with a thumbnail', async (format) => {
    const bytes = await photo(48, 30, format);
    const row = await saveUpload(deps, { bytes, contentType: `image/${format}` });
    expect(row).toMatchObject({ contentType: `image/${format}`, width: 48, height: 30, hasThumbnail: true });
    const meta = await sharp(readFileSync(uploadPath(deps.uploadsDir, row.contentHash))).metadata();
    expect(meta.format).toBe(format === 'avif' ? 'heif' : format);
  });

  it('the same file twice is one row and one file', async () => {
    const bytes = await photo(40, 40, 'png');
    const first = await saveUpload(deps, { bytes, contentType: 'image/png' });
    const second = await saveUpload(deps, { bytes: Buffer.from(bytes), contentType: 'image/png' });
    expect(second.id).toBe(first.id);
    expect(rows()).toHaveLength(1);
    expect(files().sort()).toEqual([first.contentHash, `${first.contentHash}_resized`]);
  });
});

describe('storing other files', () => {
  it('an MP4 is stored byte for byte with its type, without thumbnail or dimensions', async () => {
    const mp4 = Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypisom'), Buffer.alloc(200, 7)]);
    const row = await saveUpload(deps, { bytes: mp4, contentType: 'video/mp4' });
    expect(row).toMatchObject({ contentType: 'video/mp4', hasThumbnail: false, blurhash: null, width: null, height: null });
    expect(readFileSync(uploadPath(deps.uploadsDir, row.contentHash)).equals(mp4)).toBe(true);
    expect(files()).toEqual([row.contentHash]);
  });
});

describe('refusing bad input, leaving nothing behind', () => {
  it('a file over the size cap', async () => {
    const big = Buffer.concat([await photo(8, 8, 'jpeg'), Buffer.alloc(MAX_IMAGE_BYTES)]);
    const error = await refusal(big, 'image/jpeg');
    expect(error.reason).toBe('too_large');
    expect(error.message).toBe('This file is too large: images can be at most 16 MB.');
  });

  it('bytes that are not the claimed type (a PNG sent as JPEG, text sent as PNG, a JPEG sent as MP4)', async () => {
    expect((await refusal(await photo(8, 8, 'png'), 'image/jpeg')).reason).toBe('type_mismatch');
    expect((await refusal(Buffer.from('<svg onload="alert(1)"/>'), 'image/png')).message).toBe('This file is not the PNG image it claims to be.');
    expect((await refusal(await photo(8, 8, 'jpeg'), 'video/mp4')).reason).toBe('type_mismatch');
  });

  it('a type Tern does not take (SVG, HTML)', async () => {
    expect((await refusal(Buffer.from('<svg/>'), 'image/svg+xml')).reason).toBe('unsupported_type');
    expect((await refusal(Buffer.from('<html>'), 'text/html')).reason).toBe('unsupported_type');
  });

  it('a corrupt image (a JPEG cut short)', async () => {
    const whole = await photo(200, 200, 'jpeg');
    const error = await refusal(whole.subarray(0, 300), 'image/jpeg');
    expect(error.reason).toBe('corrupt');
    expect(error.message).toBe('This image could not be read: the file is damaged or incomplete.');
  });

  it('a decompression bomb (a small PNG claiming 900 million pixels)', async () => {
    const bomb = pngBomb(30_000, 30_000);
    expect(bomb.byteLength).toBeLessThan(100_000);
    const error = await refusal(bomb, 'image/png');
    expect(error.reason).toBe('too_many_pixels');
    expect(error.message).toMatch(/too large to open safely/);
  });

  it('an empty file', async () => {
    expect((await refusal(new Uint8Array(0), 'image/png')).reason).toBe('empty');
  });
});

describe('the media service sweeps what was never posted', () => {
  it('an upload left unattached for two days goes; one handed out again lately by its hash stays', async () => {
    let now = new Date('2026-03-01T00:00:00Z');
    const media = createMediaService({ db, uploadsDir: deps.uploadsDir, clock: () => now });
    const send = async (bytes: Buffer) => {
      const { uploadId } = media.begin({ contentType: 'image/png', size: bytes.byteLength });
      media.chunk({ uploadId, offset: 0, data: bytes.toString('base64') });
      return media.finish({ uploadId });
    };
    const forgotten = await send(await photo(20, 20, 'png'));
    const again = await photo(21, 21, 'png');
    const reused = await send(again);
    now = new Date('2026-03-02T06:00:00Z');
    expect((await send(again)).id).toBe(reused.id); // found again by its hash: handed out anew
    now = new Date('2026-03-03T13:30:00Z');
    media.begin({ contentType: 'image/png', size: 1 }); // a new upload starts: the sweep runs
    expect(rows().map((r) => r.id)).toEqual([reused.id]);
    expect(files().sort()).toEqual([reused.contentHash, `${reused.contentHash}_resized`]);
    expect(forgotten.id).not.toBe(reused.id);
  });
});

describe('uploads through the window, in chunks', () => {
  it('a 3 MiB MP4 sent in 512 KiB chunks is never joined into one buffer: stored whole, by its hash', async () => {
    const media = createMediaService({ db, uploadsDir: deps.uploadsDir, clock: () => new Date() });
    const mp4 = Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypisom'), Buffer.alloc(3 * 1024 * 1024, 9)]);
    const { uploadId, chunkBytes } = media.begin({ contentType: 'video/mp4', size: mp4.byteLength });
    for (let offset = 0; offset < mp4.byteLength; offset += chunkBytes) {
      media.chunk({ uploadId, offset, data: mp4.subarray(offset, offset + chunkBytes).toString('base64') });
    }
    const concat = vi.spyOn(Buffer, 'concat');
    const whole = vi.spyOn(Blob.prototype, 'arrayBuffer');
    try {
      const row = await media.finish({ uploadId });
      expect(concat.mock.calls.filter(([list]) => list.reduce((n, b) => n + b.byteLength, 0) > chunkBytes)).toEqual([]);
      expect(Math.max(0, ...whole.mock.contexts.map((blob) => (blob as Blob).size))).toBeLessThanOrEqual(SNIFF_BYTES);
      expect(row.contentHash).toBe(contentHashOf(mp4));
      expect(readFileSync(uploadPath(deps.uploadsDir, row.contentHash)).equals(mp4)).toBe(true);
    } finally {
      concat.mockRestore();
      whole.mockRestore();
    }
  });
});

/**
 * ArrayBuffer memory (all Buffers) one upload of a 6 MiB MP4 allocated, per byte of the file: the
 * most of three runs, each measured from a collected heap and not collected in between (a GC
 * during a run can only lower the figure). `prepare` makes what is sent, before the measure;
 * `send` stores it and answers the row, whose file must be the MP4's bytes.
 */
async function allocatedPerByte<T>(prepare: (mp4: Buffer) => T, send: (sent: T) => Promise<Upload>, between: () => void = () => {}): Promise<number> {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  let most = 0;
  for (let run = 0; run < 3; run++) {
    const mp4 = Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypisom'), randomBytes(6 * 1024 * 1024)]);
    const sent = prepare(mp4);
    gc();
    const before = process.memoryUsage().arrayBuffers;
    const row = await send(sent);
    most = Math.max(most, (process.memoryUsage().arrayBuffers - before) / mp4.byteLength);
    expect(row.contentHash).toBe(contentHashOf(mp4));
    expect(readFileSync(uploadPath(deps.uploadsDir, row.contentHash)).equals(mp4)).toBe(true);
    between();
  }
  return most;
}

describe('uploads through the window: each chunk decoded once and written as it is', () => {
  it('a 6 MiB MP4 allocates about its size in buffers, not three times it, from its first chunk to its stored row', async () => {
    // Each chunk used to be decoded, copied into a Blob and read out of it again to be written
    // (3.0 times the file).
    const media = createMediaService({ db, uploadsDir: deps.uploadsDir, clock: () => new Date() });
    const most = await allocatedPerByte(
      (mp4) => {
        const { uploadId, chunkBytes } = media.begin({ contentType: 'video/mp4', size: mp4.byteLength });
        const data: string[] = [];
        for (let offset = 0; offset < mp4.byteLength; offset += chunkBytes) data.push(mp4.subarray(offset, offset + chunkBytes).toString('base64'));
        return { uploadId, chunkBytes, data };
      },
      async ({ uploadId, chunkBytes, data }) => {
        for (const [i, chunk] of data.entries()) media.chunk({ uploadId, offset: i * chunkBytes, data: chunk });
        return media.finish({ uploadId });
      },
    );
    expect(most).toBeLessThan(1.5);
  });
});

describe('files from the network (saveUploadFile)', () => {
  /** 64 KiB pieces, as the multipart reader keeps a file part arriving in socket chunks. */
  const pieces = (bytes: Buffer) => Array.from({ length: Math.ceil(bytes.length / 65_536) }, (_, i) => new Uint8Array(bytes.subarray(i * 65_536, (i + 1) * 65_536)));

  it('a 3 MiB MP4 is streamed to disk and hashed in pieces, never read into one buffer, and moved into place', async () => {
    const mp4 = Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypisom'), Buffer.alloc(3 * 1024 * 1024, 7)]);
    const file = pieces(mp4);
    const concat = vi.spyOn(Buffer, 'concat');
    const { upload: row, created } = await saveUploadFile(deps, { file, contentType: 'video/mp4' });
    // Each piece is written as it is (a 65 MiB concat: 100 ms), and taken out of the list.
    expect(concat).not.toHaveBeenCalled();
    concat.mockRestore();
    expect(file).toEqual([]);
    expect([row.contentHash, created]).toEqual([contentHashOf(mp4), true]);
    expect(readFileSync(uploadPath(deps.uploadsDir, row.contentHash)).equals(mp4)).toBe(true);
    expect(files()).toEqual([row.contentHash]);
    expect(await saveUploadFile(deps, { file: pieces(mp4), contentType: 'video/mp4' })).toEqual({ upload: row, created: false });
    expect(files()).toEqual([row.contentHash]);
  });

  it('an image over the size cap is refused on its size before a byte of it is written or hashed', async () => {
    const big = pieces(Buffer.concat([await photo(8, 8, 'jpeg'), Buffer.alloc(MAX_IMAGE_BYTES)]));
    const count = big.length;
    const error = await saveUploadFile(deps, { file: big, contentType: 'image/jpeg' }).catch((e: unknown) => e);
    expect(error).toMatchObject({ reason: 'too_large' });
    expect(big).toHaveLength(count);
    expect([rows(), files()]).toEqual([[], []]);
  });

  it('an image goes through the pipeline as saveUpload takes it, and no temporary file stays', async () => {
    const png = await photo(300, 200, 'png');
    const { upload: row } = await saveUploadFile(deps, { file: pieces(png), contentType: 'image/png' });
    expect(row).toMatchObject({ contentType: 'image/png', hasThumbnail: true, width: 300, height: 200 });
    expect(files().sort()).toEqual([row.contentHash, `${row.contentHash}_resized`]);
  });
});

describe('files from the listener: a multipart part stored as the pieces of its socket chunks', () => {
  const B = 'tern-test-boundary-3f9a';
  const bodyOf = (file: Buffer, type: string) =>
    Buffer.concat([Buffer.from(`--${B}\r\nContent-Disposition: form-data; name="file"; filename="v.mp4"\r\nContent-Type: ${type}\r\n\r\n`), file, Buffer.from(`\r\n--${B}--\r\n`)]);
  /** A request whose body arrives in 64 KiB chunks, each its own buffer as node:http's are once
   * Readable.toWeb has copied them; `buffers` gets a weak reference to each. */
  const streamed = (body: Buffer, buffers: WeakRef<ArrayBuffer>[] = []) => {
    let at = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (at >= body.length) return controller.close();
        const chunk = new Uint8Array(body.subarray(at, (at += 65_536)));
        buffers.push(new WeakRef(chunk.buffer));
        controller.enqueue(chunk);
      },
    });
    return new Request('http://x/', { method: 'POST', headers: { 'content-type': `multipart/form-data; boundary=${B}` }, body: stream, duplex: 'half' } as RequestInit);
  };
  const fileOf = (body: DecodedBody) => {
    const file = body.kind === 'multipart' ? body.form.find(([name]) => name === 'file')?.[1] : undefined;
    if (!(file instanceof UploadedFile)) throw new Error(`no file part in a ${body.kind} body`);
    return file;
  };

  it('a 6 MiB MP4 allocates its size once (its socket chunks) from the first chunk to its stored row; a refused body keeps none of its chunks', async () => {
    // The chunks are the one allocation. It was 2.8 times the file: each chunk was copied into a
    // Blob, and readCappedBody made an empty array of the body's size.
    const media = createMediaService({ db, uploadsDir: deps.uploadsDir, clock: () => new Date() });
    const most = await allocatedPerByte(
      (mp4) => bodyOf(mp4, 'video/mp4'),
      async (body) => {
        const file = fileOf(await decodeBody(streamed(body), 16 * 1024 * 1024, { multipart: true }));
        return (await media.store({ file: file.pieces, contentType: file.type })).upload;
      },
      () => {
        db.delete(upload).run();
        rmSync(deps.uploadsDir, { recursive: true });
      },
    );
    expect(most).toBeLessThan(1.25);

    // A file, then one part more than the bound: refused as it arrives, and its file's pieces
    // (the chunks themselves) go with the reader.
    const over = Buffer.concat([bodyOf(randomBytes(2 * 1024 * 1024), 'video/mp4').subarray(0, -(B.length + 6)), Buffer.from(`--${B}\r\nContent-Disposition: form-data; name="x"\r\n\r\nv\r\n`.repeat(2) + `--${B}--\r\n`)]);
    const buffers: WeakRef<ArrayBuffer>[] = [];
    const refusal = await decodeBody(streamed(over, buffers), 16 * 1024 * 1024, { multipart: true, fields: 2 }).catch((e: unknown) => e);
    expect(refusal).toMatchObject({ status: 400, message: 'the multipart body has more than 2 parts' });
    await new Promise((resolve) => setImmediate(resolve));
    (runInNewContext('gc') as () => void)();
    expect(buffers.length).toBeGreaterThan(30);
    expect(buffers.filter((ref) => ref.deref() !== undefined)).toEqual([]);
  });

  it('stores the same file under the same hash wherever the chunks split the body', async () => {
    // Bytes that begin like the delimiter inside the file, so that splits near one are tried.
    const mp4 = Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypisom'), Buffer.from(`\r\n--${B.slice(0, 8)}\r\n-\r\n--${B.slice(0, -1)}`.repeat(4)), randomBytes(100)]);
    const body = bodyOf(mp4, 'video/mp4');
    for (let split = 0; split <= body.length; split++) {
      const reader = multipartReader(B, { parts: 2, fieldBytes: 1024 });
      reader.push(new Uint8Array(body.subarray(0, split)));
      reader.push(new Uint8Array(body.subarray(split)));
      const file = reader.end()[0]![1] as UploadedFile;
      const { upload: row } = await saveUploadFile(deps, { file: file.pieces, contentType: file.type });
      if (row.contentHash !== contentHashOf(mp4) || !readFileSync(uploadPath(deps.uploadsDir, row.contentHash)).equals(mp4)) throw new Error(`split at ${split}: a different file was stored`);
      db.delete(upload).run();
      rmSync(uploadPath(deps.uploadsDir, row.contentHash));
    }
    expect(files()).toEqual([]);
  });
});

describe('an image that came in pieces is decoded from its temporary file', () => {
  /** The same bytes in pieces of `size`, each its own Buffer, as decoded from the window's chunks. */
  const listOf = (bytes: Buffer, size: number) => Array.from({ length: Math.ceil(bytes.length / size) }, (_, i) => Buffer.from(bytes.subarray(i * size, (i + 1) * size)));
  const storedFiles = (hash: string) => files().filter((name) => name.startsWith(hash)).sort().map((name) => readFileSync(join(deps.uploadsDir, name)));
  const forget = (hash: string) => {
    db.delete(upload).run();
    for (const name of files()) if (name.startsWith(hash)) rmSync(join(deps.uploadsDir, name));
  };
  const described = ({ contentType, contentHash, hasThumbnail, blurhash, width, height }: typeof upload.$inferSelect) => ({ contentType, contentHash, hasThumbnail, blurhash, width, height });

  it('stores exactly what saveUpload stores from the same bytes in one buffer: hash, cleaned file, thumbnail, blurhash and size', async () => {
    const cases: [Buffer, string][] = [
      [await sidewaysJpegWithGps(300, 200), 'image/jpeg'],
      [await photo(500, 300, 'png'), 'image/png'],
      [await photo(120, 90, 'gif'), 'image/gif'],
      [await photo(200, 150, 'webp'), 'image/webp'],
    ];
    for (const [bytes, contentType] of cases) {
      const whole = await saveUpload(deps, { bytes, contentType });
      const wholeFiles = storedFiles(whole.contentHash);
      expect(wholeFiles).toHaveLength(2);
      forget(whole.contentHash);
      const { upload: row, created } = await saveUploadFile(deps, { file: listOf(bytes, 1000), contentType });
      expect([created, described(row)]).toEqual([true, described(whole)]);
      expect(storedFiles(row.contentHash)).toEqual(wholeFiles);
      // Nothing but the upload's two files: the temporary file was renamed or removed.
      expect(files()).toHaveLength(2);
      forget(row.contentHash);
    }
    // A GIF is stored byte for byte: its temporary file, renamed into place.
    const gif = cases[2]![0];
    const { upload: row } = await saveUploadFile(deps, { file: listOf(gif, 1000), contentType: 'image/gif' });
    expect(readFileSync(uploadPath(deps.uploadsDir, row.contentHash)).equals(gif)).toBe(true);
  });

  it('refuses a corrupt image and a decompression bomb read from the file as from bytes, leaving nothing behind', async () => {
    const cut = (await photo(200, 200, 'jpeg')).subarray(0, 300);
    const bomb = pngBomb(30_000, 30_000);
    for (const [bytes, contentType, reason] of [[cut, 'image/jpeg', 'corrupt'], [bomb, 'image/png', 'too_many_pixels']] as const) {
      const error = await saveUploadFile(deps, { file: listOf(bytes, 100), contentType }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(MediaRejectedError);
      expect((error as MediaRejectedError).reason).toBe(reason);
      expect([rows(), files()]).toEqual([[], []]);
    }
  });

  it('holds no copy of the image in memory while it is decoded: the pieces go as they are written, and nothing is read back', async () => {
    // Live ArrayBuffer memory (Buffers), after a full GC, sampled while the upload is stored. The
    // image is 6 MP of noise at JPEG quality 100 (about 8 MiB), which re-encodes at quality 90 to
    // about half that: a read-back copy would show as the whole size above the start, held for as
    // long as sharp works; the cleaned image and thumbnail alone stay under it.
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const live = () => {
      gc();
      return process.memoryUsage().arrayBuffers;
    };
    const width = 3000;
    const height = 2000;
    const jpeg = await sharp(randomBytes(width * height * 3), { raw: { width, height, channels: 3 } })
      .jpeg({ quality: 100 })
      .toBuffer();
    const media = createMediaService({ db, uploadsDir: deps.uploadsDir, clock: () => new Date() });
    const { uploadId, chunkBytes } = media.begin({ contentType: 'image/jpeg', size: jpeg.byteLength });
    for (let offset = 0; offset < jpeg.byteLength; offset += chunkBytes) {
      media.chunk({ uploadId, offset, data: jpeg.subarray(offset, offset + chunkBytes).toString('base64') });
    }
    const start = live();
    let peak = start;
    const sampler = setInterval(() => (peak = Math.max(peak, live())), 5);
    try {
      const row = await media.finish({ uploadId });
      expect(row).toMatchObject({ contentHash: contentHashOf(jpeg), width, height, hasThumbnail: true });
    } finally {
      clearInterval(sampler);
    }
    expect(peak - start).toBeLessThan(jpeg.byteLength * 0.75);
  });
});

describe('files an interrupted upload left', () => {
  it('files without a row (killed between the files and the row) and temporary files are removed; stored uploads and other files stay', async () => {
    const kept = await saveUpload(deps, { bytes: await photo(40, 40, 'png'), contentType: 'image/png' });
    const orphan = contentHashOf(Buffer.from('bytes whose row was never written'));
    writeFileSync(uploadPath(deps.uploadsDir, orphan), 'x');
    writeFileSync(thumbnailPath(deps.uploadsDir, orphan), 'x');
    writeFileSync(join(deps.uploadsDir, 'notes.txt'), 'not an upload');
    // A file still arriving when the app stopped (saveUploadFile), and one being written.
    writeFileSync(join(deps.uploadsDir, 'incoming-0b1d.tmp'), 'half a video');
    writeFileSync(`${uploadPath(deps.uploadsDir, orphan)}.0b1d.tmp`, 'half a file');
    expect(removeOrphanFiles(db, deps.uploadsDir)).toBe(4);
    expect(files().sort()).toEqual([kept.contentHash, `${kept.contentHash}_resized`, 'notes.txt']);
    expect(removeOrphanFiles(db, deps.uploadsDir)).toBe(0);
    expect(removeOrphanFiles(db, join(dir, 'no-such-folder'))).toBe(0);
  });
});


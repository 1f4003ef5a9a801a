// Media bench: what storing an upload costs (sniff, hash, EXIF strip by re-encoding with the
// orientation applied, WebP thumbnail, blurhash, files and row) per megapixel, beside sharp's
// own resize of the same image to the same thumbnail — the floor of any thumbnailing — and
// beside the re-encode alone. A few seconds: a 12 MP JPEG and a 2 MP PNG, median of 3 runs.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import sharp from 'sharp';
import { openSqlite, wrapDrizzle } from '../db/client';
import { upload } from '../db/schema';
import { upgrade } from '../migrations/runner';
import { THUMBNAIL_SIZE } from '../electron/core/media/limits';
import { saveUpload, thumbnailPath, uploadPath } from '../electron/core/media/store';
import { photo } from '../electron/core/media/test-images';
import { n1, n2, note, rows, section } from './report';

const RUNS = 3;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;

async function time(fn: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

export interface MediaCase {
  label: string;
  megapixels: number;
  bytes: number;
  uploadMs: number;
  resizeMs: number;
  reencodeMs: number;
}

export async function measureMedia(): Promise<MediaCase[]> {
  const dir = mkdtempSync(join(tmpdir(), 'tern-bench-media-'));
  const sqlite = openSqlite(join(dir, 'tern.db'));
  try {
    upgrade(sqlite);
    const db = wrapDrizzle(sqlite);
    const deps = { db, uploadsDir: join(dir, 'uploads'), clock: () => new Date() };
    const cases: { label: string; width: number; height: number; format: 'jpeg' | 'png' }[] = [
      { label: '12 MP JPEG (4000 × 3000)', width: 4000, height: 3000, format: 'jpeg' },
      { label: '2 MP PNG (1600 × 1200)', width: 1600, height: 1200, format: 'png' },
    ];
    const out: MediaCase[] = [];
    for (const c of cases) {
      const input = await photo(c.width, c.height, c.format);
      const type = `image/${c.format}`;
      const uploadRuns: number[] = [];
      const resizeRuns: number[] = [];
      const reencodeRuns: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        uploadRuns.push(
          await time(async () => {
            const row = await saveUpload(deps, { bytes: input, contentType: type });
            // Forget it, so the next run stores it again instead of finding it.
            db.delete(upload).where(eq(upload.id, row.id)).run();
            rmSync(uploadPath(deps.uploadsDir, row.contentHash), { force: true });
            rmSync(thumbnailPath(deps.uploadsDir, row.contentHash), { force: true });
          }),
        );
        resizeRuns.push(await time(() => sharp(input).resize(THUMBNAIL_SIZE, THUMBNAIL_SIZE, { fit: 'inside' }).webp({ quality: 80 }).toBuffer()));
        reencodeRuns.push(await time(() => sharp(input).autoOrient().toFormat(c.format, c.format === 'jpeg' ? { quality: 90 } : {}).toBuffer()));
      }
      out.push({ label: c.label, megapixels: (c.width * c.height) / 1e6, bytes: input.byteLength, uploadMs: median(uploadRuns), resizeMs: median(resizeRuns), reencodeMs: median(reencodeRuns) });
    }
    return out;
  } finally {
    sqlite.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export function printMedia(cases: MediaCase[]): void {
  section(`Media: storing an upload vs sharp alone (median of ${RUNS}, sharp ${sharp.versions.sharp}, libvips ${sharp.versions.vips})`);
  for (const c of cases) {
    rows([
      { label: `${c.label}, ${n1(c.bytes / 1e6)} MB`, value: `upload ${n1(c.uploadMs)} ms = ${n1(c.uploadMs / c.megapixels)} ms/MP` },
      { label: '  sharp resize to the 740 px WebP thumbnail', value: `${n1(c.resizeMs)} ms = ${n1(c.resizeMs / c.megapixels)} ms/MP`, target: 'comparison only' },
      { label: '  sharp re-encode in its format (the EXIF strip)', value: `${n1(c.reencodeMs)} ms = ${n1(c.reencodeMs / c.megapixels)} ms/MP`, target: 'comparison only' },
      { label: '  upload / sharp resize', value: `${n2(c.uploadMs / c.resizeMs)}×` },
    ]);
  }
  note('Upload = type sniff + SHA-256 + header check + re-encode (orientation applied, metadata dropped) + thumbnail (in parallel) + blurhash (from the thumbnail) + two files + one row.');
  note(`sharp runs on libvips's own thread pool (${sharp.concurrency()} threads here); the figures are wall time of one upload at a time.`);
}

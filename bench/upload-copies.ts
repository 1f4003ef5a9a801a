// What an upload costs the process in memory and main-thread time, through the real media
// service: a near-cap JPEG and a 40 MiB video-like file, each sent as the window sends them
// (base64 chunks over IPC, then finish) and as the Micropub media endpoint receives them (a
// multipart body in 64 KiB socket-sized chunks, then store). Each run is its own process, so
// the RSS high-water mark (getrusage's maxrss) belongs to that one upload alone.
//   npx tsx bench/upload-copies.ts            all cases, median of RUNS
//   npx tsx bench/upload-copies.ts <case> <file>   one run (what the parent spawns)
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import sharp from 'sharp';
import { openSqlite, wrapDrizzle } from '../db/client';
import { upgrade } from '../migrations/runner';
import { multipartReader } from '../electron/core/listener/multipart';
import { MAX_AV_BYTES } from '../electron/core/media/limits';
import { createMediaService } from '../electron/core/media/service';
import { UploadedFile } from '../electron/core/media/uploaded-file';

const RUNS = Number(process.env.RUNS ?? 3);
const CASES = ['ipc-image', 'ipc-video', 'multipart-image', 'multipart-video'] as const;
type Case = (typeof CASES)[number];

const MiB = 1024 * 1024;

/** Anonymous memory (RssAnon), in bytes; NaN where /proc is not there. */
function anonymous(): number {
  try {
    const line = /^RssAnon:\s+(\d+) kB/m.exec(readFileSync('/proc/self/status', 'utf8'));
    return line ? Number(line[1]) * 1024 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}
const mib = (bytes: number) => (bytes / MiB).toFixed(1);

interface Result {
  bytes: number;
  /** Wall time of the whole upload, first chunk to stored row. */
  ms: number;
  /** The RSS high-water mark above the RSS just before the upload began. */
  peakRssMib: number;
  /** The same, once the last chunk has been received (before finish or store). */
  peakRssReceivedMib: number;
  /** The most anonymous memory (Linux RssAnon, sampled every 5 ms) above the start. RSS also
   * counts the pages of files mapped into the process: libvips maps an input file once per
   * pipeline reading it, pages the page cache holds anyway, since the file was just written. */
  peakAnonMib: number;
  /** ArrayBuffer memory (Buffers, not Blobs) right after the upload, before any GC. */
  arrayBuffersAfterMib: number;
  /** The longest the main thread was held in one turn while the upload ran. */
  longestTurnMs: number;
}

async function runOne(kind: Case, file: string): Promise<Result> {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const dir = mkdtempSync(join(tmpdir(), 'tern-bench-upload-'));
  const sqlite = openSqlite(join(dir, 'tern.db'));
  try {
    upgrade(sqlite);
    const media = createMediaService({ db: wrapDrizzle(sqlite), uploadsDir: join(dir, 'uploads'), clock: () => new Date() });
    const bytes = readFileSync(file);
    const contentType = kind.endsWith('image') ? 'image/jpeg' : 'video/mp4';
    // sharp's first call loads libvips and its thread pool: not the upload's cost.
    await sharp({ create: { width: 8, height: 8, channels: 3, background: '#000' } })
      .png()
      .toBuffer();
    gc();
    const rssBefore = process.memoryUsage.rss();
    const anonBefore = anonymous();
    let anonPeak = anonBefore;
    const sampler = setInterval(() => (anonPeak = Math.max(anonPeak, anonymous())), 5);
    const turns = monitorEventLoopDelay({ resolution: 5 });
    turns.enable();
    const start = performance.now();
    let peakRssReceived = 0;
    if (kind.startsWith('ipc')) {
      const { uploadId, chunkBytes } = media.begin({ contentType, size: bytes.byteLength });
      for (let offset = 0; offset < bytes.byteLength; offset += chunkBytes) {
        // The string the window sends; yielding between chunks as IPC messages arrive.
        media.chunk({ uploadId, offset, data: bytes.subarray(offset, offset + chunkBytes).toString('base64') });
        await new Promise((resolve) => setImmediate(resolve));
      }
      peakRssReceived = process.resourceUsage().maxRSS * 1024 - rssBefore;
      await media.finish({ uploadId });
    } else {
      const boundary = 'bench-boundary-7d1f';
      const body = Buffer.concat([
        Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="f"\r\nContent-Type: ${contentType}\r\n\r\n`),
        bytes,
        Buffer.from(`\r\n--${boundary}--\r\n`),
      ]);
      const reader = multipartReader(boundary, { parts: 4, fieldBytes: MiB });
      for (let at = 0; at < body.byteLength; at += 65_536) {
        // Each socket read is its own buffer.
        reader.push(Buffer.from(body.subarray(at, at + 65_536)));
        if (at % (16 * 65_536) === 0) await new Promise((resolve) => setImmediate(resolve));
      }
      const file = reader.end().find(([name]) => name === 'file')?.[1];
      if (!(file instanceof UploadedFile)) throw new Error('no file part');
      peakRssReceived = process.resourceUsage().maxRSS * 1024 - rssBefore;
      await media.store({ file: file.pieces, contentType });
    }
    const ms = performance.now() - start;
    turns.disable();
    clearInterval(sampler);
    anonPeak = Math.max(anonPeak, anonymous());
    return {
      bytes: bytes.byteLength,
      ms,
      peakRssMib: (process.resourceUsage().maxRSS * 1024 - rssBefore) / MiB,
      peakRssReceivedMib: peakRssReceived / MiB,
      peakAnonMib: (anonPeak - anonBefore) / MiB,
      arrayBuffersAfterMib: process.memoryUsage().arrayBuffers / MiB,
      longestTurnMs: turns.max / 1e6,
    };
  } finally {
    sqlite.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'tern-bench-upload-inputs-'));
  try {
    // Noise compresses badly: a 4600 × 3400 JPEG at q 93 is about 14 MiB, near the 16 MiB cap.
    const width = 4600;
    const height = 3400;
    const jpeg = await sharp(randomBytes(width * height * 3), { raw: { width, height, channels: 3 } })
      .jpeg({ quality: 93 })
      .toBuffer();
    const mp4 = Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypisom'), randomBytes(MAX_AV_BYTES - 12)]);
    const inputs: Record<'image' | 'video', string> = { image: join(dir, 'photo.jpg'), video: join(dir, 'video.mp4') };
    writeFileSync(inputs.image, jpeg);
    writeFileSync(inputs.video, mp4);
    console.log(`inputs: JPEG ${width} × ${height}, ${mib(jpeg.byteLength)} MiB; MP4-like ${mib(mp4.byteLength)} MiB; median of ${RUNS} runs, each in its own process`);
    console.log(
      `${'case'.padEnd(18)}${'time ms'.padStart(10)}${'peak RSS +MiB'.padStart(16)}${'received +MiB'.padStart(16)}${'peak anon +MiB'.padStart(17)}${'ArrayBuffers after MiB'.padStart(24)}${'longest turn ms'.padStart(18)}`,
    );
    const self = fileURLToPath(import.meta.url);
    for (const kind of CASES) {
      const runs: Result[] = [];
      for (let i = 0; i < RUNS; i++) {
        const child = spawnSync(process.execPath, ['--import', 'tsx', self, kind, inputs[kind.endsWith('image') ? 'image' : 'video']], { encoding: 'utf8' });
        if (child.status !== 0) throw new Error(`${kind} failed: ${child.stderr}`);
        runs.push(JSON.parse(child.stdout.trim().split('\n').at(-1)!) as Result);
      }
      const median = (pick: (r: Result) => number) => [...runs.map(pick)].sort((a, b) => a - b)[Math.floor(RUNS / 2)]!;
      console.log(
        `${kind.padEnd(18)}${median((r) => r.ms).toFixed(0).padStart(10)}${median((r) => r.peakRssMib).toFixed(1).padStart(16)}${median((r) => r.peakRssReceivedMib).toFixed(1).padStart(16)}${median((r) => r.peakAnonMib).toFixed(1).padStart(17)}${median((r) => r.arrayBuffersAfterMib).toFixed(1).padStart(24)}${median((r) => r.longestTurnMs).toFixed(1).padStart(18)}`,
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const [kind, file] = process.argv.slice(2);
if (kind !== undefined && file !== undefined) {
  if (!(CASES as readonly string[]).includes(kind)) throw new Error(`unknown case ${kind}`);
  console.log(JSON.stringify(await runOne(kind as Case, file)));
} else {
  await main();
}

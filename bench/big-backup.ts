// Opt-in check, not a test (it reads 4.5 GB three times, about a minute):
//   npx tsx bench/big-backup.ts
// A backup of a data folder over 4 GiB (three sparse 1.5 GB uploads) is written as a stream and
// read back whole: before, gzipSync silently truncated it at 4 GiB (Node 24) and took 9 GB of
// memory, and the reader refused it. Prints the time and the peak memory of each step.
import { mkdirSync, truncateSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openCore } from '../electron/core/core';
import { createBackup, readBackup } from '../electron/core/data/backup';

const dataDir = join(tmpdir(), 'tern-big-backup-probe');
rmSync(dataDir, { recursive: true, force: true });
const core = await openCore({ dataDir, mode: 'headless' });
mkdirSync(core.paths.uploads, { recursive: true });
for (const n of ['a', 'b', 'c']) {
  const p = join(core.paths.uploads, n.repeat(64));
  writeFileSync(p, '');
  truncateSync(p, 1_500_000_000);
}
let t = Date.now();
const made = await createBackup(core);
console.log(`createBackup: ok, ${made.path}, ${made.bytes} bytes, ${Date.now() - t} ms, maxRSS ${(process.resourceUsage().maxRSS / 1e6).toFixed(2)} GB`);
core.close();
t = Date.now();
try {
  const { manifest } = await readBackup(made.path);
  console.log(`readBackup: accepted, ${manifest.entries.reduce((sum, e) => sum + e.bytes, 0)} bytes listed, ${Date.now() - t} ms, maxRSS ${(process.resourceUsage().maxRSS / 1e6).toFixed(2)} GB`);
} catch (e) {
  console.log('readBackup refused:', (e as Error).message, `${Date.now() - t} ms`);
}
rmSync(dataDir, { recursive: true, force: true });
process.exit(0);

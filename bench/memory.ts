// Memory of the Tern process during the bench: the RSS high-water mark, sampled every few
// milliseconds per phase (by a child process), and a forced-GC heap reading at checkpoints ("flat as rows grow").
import { spawn } from 'node:child_process';
import type { Socket } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as (() => void) | undefined;

export interface PhasePeak {
  phase: string;
  peakRssMb: number;
}

export interface MemorySampler {
  /** Starts a new phase; the previous one's peak is kept. */
  phase(name: string): void;
  /** Ends the last phase; resolves with every phase's peak and the whole run's. */
  stop(): Promise<{ peaks: PhasePeak[]; overallMb: number }>;
}

export const mb = (bytes: number) => bytes / (1024 * 1024);

// The sampling runs in a child process that reads this process's resident size from
// /proc/<pid>/status every `intervalMs`. Read here, on the app's thread, it held that thread up:
// 62 µs at the median but 3.6 ms at p99 and up to 8.5 ms while the workers were busy, 100 times
// a second (234 ms over a BENCH_ONLY=inbox run, measured): the bench's own stalls, counted in the
// accept latencies and loop delay it reports. On a worker thread of this process instead, the
// thread's own isolate added 12–13 MB to every figure (review). The child keeps each phase's
// peak (a line "phase" on its stdin ends one) and writes them all as JSON when told "stop".
const SAMPLER_SOURCE = `
const { readFileSync } = require('node:fs');
const [pid, every] = process.argv.slice(-2).map(Number);
const peaks = [];
let peak = 0;
let readable = true;
const sample = () => {
  try {
    const match = /VmRSS:\\s*(\\d+) kB/.exec(readFileSync('/proc/' + pid + '/status', 'utf8'));
    if (match) peak = Math.max(peak, Number(match[1]));
  } catch {
    readable = false;
    clearInterval(timer);
  }
};
const timer = setInterval(sample, every);
let pending = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  pending += chunk;
  let at;
  while ((at = pending.indexOf('\\n')) >= 0) {
    const line = pending.slice(0, at);
    pending = pending.slice(at + 1);
    sample();
    peaks.push(peak);
    peak = 0;
    if (line === 'stop') {
      clearInterval(timer);
      process.stdout.write(JSON.stringify({ readable, peaksKib: peaks }) + '\\n', () => process.exit(0));
    }
  }
});
`;

/** Samples this process's RSS from a child process (Linux /proc; elsewhere only the readings
 * taken here at each phase's edge count). */
export function startSampler(intervalMs = 10): MemorySampler {
  const child = spawn(process.execPath, ['-e', SAMPLER_SOURCE, String(process.pid), String(intervalMs)], { stdio: ['pipe', 'pipe', 'inherit'] });
  let output = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => (output += chunk));
  const ended = new Promise<void>((resolve) => {
    child.on('exit', () => resolve());
    child.on('error', () => resolve());
  });
  // A sampler that failed to start (or died) leaves the readings taken here.
  child.stdin.on('error', () => {});
  // It keeps nothing alive (a bench that fails midway still ends) until stop() waits for it.
  const pipes = [child.stdin, child.stdout] as unknown as Socket[];
  child.unref();
  for (const pipe of pipes) pipe.unref();
  // Each phase with this thread's own readings at its edges (a handful in a run), so a phase is
  // never below them; the child's peaks are added at stop().
  const peaks: PhasePeak[] = [];
  const here = () => mb(process.memoryUsage.rss());
  const endPhase = () => {
    const last = peaks.at(-1);
    if (last) last.peakRssMb = Math.max(last.peakRssMb, here());
  };
  return {
    phase(name) {
      endPhase();
      peaks.push({ phase: name, peakRssMb: here() });
      child.stdin.write('phase\n');
    },
    async stop() {
      endPhase();
      child.ref();
      for (const pipe of pipes) pipe.ref();
      child.stdin.write('stop\n');
      await ended;
      try {
        const reply = JSON.parse(output) as { readable: boolean; peaksKib: number[] };
        // The first entry is the time before the first phase began.
        const sampledKib = reply.readable ? reply.peaksKib.slice(1) : [];
        peaks.forEach((peak, i) => (peak.peakRssMb = Math.max(peak.peakRssMb, (sampledKib[i] ?? 0) / 1024)));
      } catch {
        // no child readings: the edges alone
      }
      return { peaks, overallMb: Math.max(0, ...peaks.map((p) => p.peakRssMb)) };
    },
  };
}

export interface Checkpoint {
  rows: number;
  rssMb: number;
  /** Heap in use after a full GC: what the process really keeps. */
  heapMb: number;
}

/** A reading after a full GC (when the flag could be set; otherwise as it is). */
export function checkpoint(rows: number): Checkpoint {
  gc?.();
  const usage = process.memoryUsage();
  return { rows, rssMb: mb(usage.rss), heapMb: mb(usage.heapUsed) };
}

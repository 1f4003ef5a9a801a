// Memory of the Tern process during the bench: the RSS high-water mark, sampled every few
// milliseconds per phase, and a forced-GC heap reading at checkpoints ("flat as rows grow").
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
  stop(): PhasePeak[];
  overallPeakMb(): number;
}

export const mb = (bytes: number) => bytes / (1024 * 1024);

export function startSampler(intervalMs = 10): MemorySampler {
  const peaks: PhasePeak[] = [];
  let current: PhasePeak | null = null;
  let overall = 0;
  const sample = () => {
    const rss = mb(process.memoryUsage.rss());
    overall = Math.max(overall, rss);
    if (current) current.peakRssMb = Math.max(current.peakRssMb, rss);
  };
  const timer = setInterval(sample, intervalMs);
  timer.unref();
  return {
    phase(name) {
      sample();
      current = { phase: name, peakRssMb: mb(process.memoryUsage.rss()) };
      peaks.push(current);
    },
    stop() {
      sample();
      clearInterval(timer);
      current = null;
      return peaks;
    },
    overallPeakMb: () => overall,
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

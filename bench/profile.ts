// Optional CPU profiles of the Tern process, one per phase (BENCH_CPU_PROFILE=<folder>): V8's
// sampling profiler through node:inspector, written as .cpuprofile files that Chrome DevTools
// opens, plus a short self-time summary by function and by package printed with the report.
import { Session } from 'node:inspector/promises';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples?: number[];
  timeDeltas?: number[];
  startTime: number;
  endTime: number;
}

export interface PhaseProfiler {
  start(phase: string): Promise<void>;
  /** Stops the current phase's profile and returns its summary lines. */
  stop(): Promise<string[]>;
  close(): Promise<void>;
}

/** Where a frame's code lives: a package (node_modules/x), Tern's own file, or node itself. */
function where(url: string): string {
  if (url === '') return '(native/gc/idle)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1]!;
  if (url.startsWith('node:')) return url;
  const own = /\/(electron|db|bench|migrations)\/(.+)$/.exec(url);
  return own ? `${own[1]}/${own[2]}` : url;
}

export function summarize(profile: Profile, top = 14): string[] {
  const total = profile.endTime - profile.startTime;
  const selfUs = new Map<number, number>();
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  for (let i = 0; i < samples.length; i++) selfUs.set(samples[i]!, (selfUs.get(samples[i]!) ?? 0) + (deltas[i] ?? 0));
  const byFunction = new Map<string, number>();
  const byPlace = new Map<string, number>();
  for (const node of profile.nodes) {
    const us = selfUs.get(node.id) ?? 0;
    if (us === 0) continue;
    const { functionName, url, lineNumber } = node.callFrame;
    const place = where(url);
    const fn = `${functionName || '(anonymous)'} ${place}${url ? `:${lineNumber + 1}` : ''}`;
    byFunction.set(fn, (byFunction.get(fn) ?? 0) + us);
    byPlace.set(place, (byPlace.get(place) ?? 0) + us);
  }
  const pct = (us: number) => `${((us / total) * 100).toFixed(1).padStart(5)}%`;
  const list = (map: Map<string, number>) =>
    [...map.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, us]) => `    ${pct(us)}  ${name}`);
  return ['  self time by package / file:', ...list(byPlace), '  self time by function:', ...list(byFunction)];
}

export async function createPhaseProfiler(folder: string): Promise<PhaseProfiler> {
  mkdirSync(folder, { recursive: true });
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 200 });
  let current: string | null = null;
  return {
    async start(phase) {
      current = phase;
      await session.post('Profiler.start');
    },
    async stop() {
      if (current === null) return [];
      const { profile } = (await session.post('Profiler.stop')) as unknown as { profile: Profile };
      const file = join(folder, `${current.replace(/[^a-z0-9]+/gi, '-')}.cpuprofile`);
      writeFileSync(file, JSON.stringify(profile));
      current = null;
      return [`  profile: ${file}`, ...summarize(profile)];
    },
    async close() {
      await session.post('Profiler.disable');
      session.disconnect();
    },
  };
}

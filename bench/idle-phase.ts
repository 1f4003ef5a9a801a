// Idle: the core opened as the apps open it (listener on, so the checkpointer runs; inbox worker,
// delivery and poll loops started; an identity set) with nothing to do, watched for
// BENCH_IDLE_SECONDS (60): CPU time of the whole process (process.cpuUsage: every thread) and
// wake-ups, counted as the voluntary context switches of each thread (/proc/self/task/*/status:
// a thread that sleeps in epoll or a futex and is woken counts one). Linux only for wake-ups.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openCore } from '../electron/core/core';

export interface IdleResult {
  seconds: number;
  cpuPercentOfCore: number;
  mainThreadCpuPercent: number;
  /** Wake-ups per second by thread name (summed over threads of that name), null off Linux. */
  wakesPerSec: Record<string, number> | null;
  /** CPU % of a core by thread name (10 ms ticks), null off Linux. */
  cpuByThread: Record<string, number> | null;
  totalWakesPerSec: number | null;
}

const TICKS_PER_SEC = 100; // USER_HZ on Linux

function contextSwitches(): Map<string, { name: string; n: number; ticks: number }> | null {
  if (!existsSync('/proc/self/task')) return null;
  const threads = new Map<string, { name: string; n: number; ticks: number }>();
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      const status = readFileSync(`/proc/self/task/${tid}/status`, 'utf8');
      const name = /^Name:\s*(.*)$/m.exec(status)?.[1] ?? '?';
      const n = Number(/^voluntary_ctxt_switches:\s*(\d+)$/m.exec(status)?.[1] ?? 0);
      // utime and stime: fields 14 and 15 of stat, counted after the ')' that ends the name.
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
      const ticks = Number(stat[11] ?? 0) + Number(stat[12] ?? 0);
      threads.set(tid, { name: tid === String(process.pid) ? 'main' : name, n, ticks });
    } catch {
      // The thread ended meanwhile.
    }
  }
  return threads;
}

export async function runIdle(seconds: number): Promise<IdleResult> {
  const dataDir = mkdtempSync(join(tmpdir(), 'tern-bench-idle-'));
  const core = await openCore({ dataDir, mode: 'headless', allowPrivateAddresses: true, inboxWorker: true, deliveryWorker: true, listen: { host: '127.0.0.1', port: 0 } });
  try {
    core.settings.update({ baseUrl: core.listener.status().url ?? '', username: 'idle' });
    await core.loops.inbox.drain(); // the worker is up (and compiled, under tsx) before the clock starts
    core.loops.inbox.start();
    core.loops.delivery.start();
    core.loops.polls.start();
    // Start-up work settles first (V8 compiling and collecting behind what just loaded).
    await new Promise((resolve) => setTimeout(resolve, 10_000));
    const before = contextSwitches();
    const cpu = process.cpuUsage();
    const mainCpu = process.threadCpuUsage();
    await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
    const used = process.cpuUsage(cpu);
    const mainUsed = process.threadCpuUsage(mainCpu);
    const after = contextSwitches();
    let wakesPerSec: Record<string, number> | null = null;
    let total: number | null = null;
    let cpuByThread: Record<string, number> | null = null;
    if (before && after) {
      wakesPerSec = {};
      cpuByThread = {};
      total = 0;
      for (const [tid, thread] of after) {
        // The bench's own wait (one timer for the whole window) is the main thread's one wake.
        const delta = thread.n - (before.get(tid)?.n ?? 0);
        wakesPerSec[thread.name] = (wakesPerSec[thread.name] ?? 0) + delta / seconds;
        const ticks = thread.ticks - (before.get(tid)?.ticks ?? 0);
        cpuByThread[thread.name] = (cpuByThread[thread.name] ?? 0) + (ticks / TICKS_PER_SEC / seconds) * 100;
        total += delta / seconds;
      }
    }
    return {
      seconds,
      cpuPercentOfCore: ((used.user + used.system) / (seconds * 1e6)) * 100,
      mainThreadCpuPercent: ((mainUsed.user + mainUsed.system) / (seconds * 1e6)) * 100,
      wakesPerSec,
      cpuByThread,
      totalWakesPerSec: total,
    };
  } finally {
    await core.listener.stop();
    await core.loops.inbox.stop();
    await core.loops.delivery.stop({ graceMs: 0 });
    core.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

// CPU time of each of this process's threads, by kind, read from /proc (Linux): where an
// activity's CPU goes (the main thread, the inbox checks worker, the processor, V8's helper
// threads that compile and collect garbage, libuv's pool that signs and verifies). Elsewhere
// (no /proc) it reads nothing and the bench prints no breakdown.
import { readdirSync, readFileSync } from 'node:fs';

const TICK_US = 10_000; // USER_HZ is 100 on Linux

/** Thread names as the kernel holds them (15 characters), to the kinds the bench prints. */
function kindOf(name: string, tid: number): string {
  if (tid === process.pid) return 'main thread';
  if (name.startsWith('tern-inbox-chec')) return 'inbox checks worker';
  if (name.startsWith('tern-inbox-work')) return 'inbox processor';
  if (name.startsWith('tern-delivery')) return 'delivery worker';
  if (name.startsWith('V8Worker') || name.startsWith('V8 ')) return "V8's helpers (compile, GC)";
  if (name.startsWith('libuv-worker')) return "libuv's pool (crypto, fs)";
  return 'other';
}

/** µs of CPU (user + system) so far, summed by kind; empty where /proc is not there. */
export function cpuByThreadKind(): Map<string, number> {
  const byKind = new Map<string, number>();
  let tids: string[];
  try {
    tids = readdirSync('/proc/self/task');
  } catch {
    return byKind;
  }
  for (const tid of tids) {
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      const close = stat.lastIndexOf(')');
      const name = stat.slice(stat.indexOf('(') + 1, close);
      const fields = stat.slice(close + 2).split(' ');
      const us = (Number(fields[11]) + Number(fields[12])) * TICK_US;
      const kind = kindOf(name, Number(tid));
      byKind.set(kind, (byKind.get(kind) ?? 0) + us);
    } catch {
      // a thread that ended meanwhile
    }
  }
  return byKind;
}

/** Each thread's run delay so far (µs runnable but not running: waiting for a core, the second
 * field of /proc/<pid>/task/<tid>/schedstat), with its kind, by "pid/tid". */
export type ThreadWaits = Map<string, { kind: string; us: number }>;

/**
 * The run delay of each of this process's threads (kinds as kindOf), or, with `pid`, of that
 * process's threads, all of kind `kind`. Empty where the kernel does not keep it (no /proc, no
 * schedstats): where a burst's latency goes when the cores are short, whatever the code does.
 */
export function threadWaits(pid?: number, kind = 'other'): ThreadWaits {
  const waits: ThreadWaits = new Map();
  const base = pid === undefined ? '/proc/self/task' : `/proc/${pid}/task`;
  let tids: string[];
  try {
    tids = readdirSync(base);
  } catch {
    return waits;
  }
  for (const tid of tids) {
    try {
      const waitedNs = Number(readFileSync(`${base}/${tid}/schedstat`, 'utf8').split(' ')[1]);
      if (!Number.isFinite(waitedNs)) continue;
      let name = kind;
      if (pid === undefined) {
        const stat = readFileSync(`${base}/${tid}/stat`, 'utf8');
        name = kindOf(stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')), Number(tid));
      }
      waits.set(`${pid ?? process.pid}/${tid}`, { kind: name, us: waitedNs / 1000 });
    } catch {
      // a thread that ended meanwhile
    }
  }
  return waits;
}

/** This process's threads' run delays, and those of `child` (a process of the bench's, as one kind)
 * when it has a pid. */
export function waitsWith(child: { pid: number | undefined; kind: string }): ThreadWaits {
  return new Map([...threadWaits(), ...(child.pid === undefined ? [] : threadWaits(child.pid, child.kind))]);
}

/** What each kind waited between two readings, thread by thread (a thread born meanwhile counts
 * from 0; one that ended meanwhile is not counted), summed by kind. */
export function waitedByKind(now: ThreadWaits, before: ThreadWaits): Map<string, number> {
  const byKind = new Map<string, number>();
  for (const [key, { kind, us }] of now) byKind.set(kind, (byKind.get(kind) ?? 0) + Math.max(0, us - (before.get(key)?.us ?? 0)));
  return byKind;
}

/** What each kind used since `before` (threads that ended meanwhile are not counted). */
export function cpuByThreadKindSince(before: Map<string, number>): Map<string, number> {
  const now = cpuByThreadKind();
  const used = new Map<string, number>();
  for (const [kind, us] of now) used.set(kind, Math.max(0, us - (before.get(kind) ?? 0)));
  return used;
}

/** "main thread 190 · inbox processor 640 · …" in µs per unit, largest first. */
export function perUnit(used: Map<string, number>, units: number): string {
  return [...used]
    .filter(([, us]) => us > 0)
    .sort((a, b) => b[1] - a[1])
    .map(([kind, us]) => `${kind} ${Math.round(us / Math.max(1, units)).toLocaleString('en-US')}`)
    .join(' · ');
}

/** The whole machine's CPU time so far, in ticks, from /proc/stat's first line; null elsewhere. */
export interface MachineTicks {
  busy: number;
  idle: number;
  /** Time the hypervisor ran something else while this machine's CPUs wanted to run. */
  steal: number;
}

export function machineTicks(): MachineTicks | null {
  try {
    const [, ...fields] = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!.trim().split(/\s+/);
    const [user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0] = fields.map(Number);
    return { busy: user + nice + system + irq + softirq, idle: idle + iowait, steal };
  } catch {
    return null;
  }
}

/** "busy 93 % · idle 5 % · stolen by the hypervisor 2 %" of the machine's CPU time since `before`. */
export function machineShareSince(before: MachineTicks | null): string {
  const now = machineTicks();
  if (before === null || now === null) return '';
  const busy = now.busy - before.busy;
  const idle = now.idle - before.idle;
  const steal = now.steal - before.steal;
  const all = Math.max(1, busy + idle + steal);
  const pct = (n: number) => `${Math.round((n / all) * 100)} %`;
  return `busy ${pct(busy)} · idle ${pct(idle)} · stolen by the hypervisor ${pct(steal)}`;
}

// The lean floor (lean-fanout.ts) in a fresh worker thread: two rounds to the same recipients,
// the first with the code cold (interpreted, then compiled by V8 as it runs, as in Tern's
// delivery worker at the first post after it starts), the second warm over the kept connections.
// Started by fanout-phase.ts; answers { rounds: [{ wallMs, cpuUs }] } (CPU: the whole process's,
// the rest of the bench idle meanwhile), or { error }.
import { createPrivateKey } from 'node:crypto';
import { Agent } from 'node:http';
import { parentPort, workerData } from 'node:worker_threads';
import { leanRound } from './lean-fanout';

export interface LeanWorkerData {
  recipients: string[];
  body: string;
  keyPem: string;
  keyId: string;
  concurrency: number;
}

export type LeanWorkerReply = { rounds: Array<{ wallMs: number; cpuUs: number }> } | { error: string };

async function main(): Promise<LeanWorkerReply> {
  const data = workerData as LeanWorkerData;
  const key = createPrivateKey(data.keyPem);
  const agent = new Agent({ keepAlive: true });
  const rounds: Array<{ wallMs: number; cpuUs: number }> = [];
  for (let round = 0; round < 2; round++) {
    const cpu = process.cpuUsage();
    const started = performance.now();
    await leanRound(data.recipients, data.body, key, data.keyId, data.concurrency, agent);
    const used = process.cpuUsage(cpu);
    rounds.push({ wallMs: performance.now() - started, cpuUs: used.user + used.system });
  }
  agent.destroy();
  return { rounds };
}

main().then(
  (reply) => parentPort?.postMessage(reply),
  (error: unknown) => parentPort?.postMessage({ error: (error as Error)?.message ?? String(error) } satisfies LeanWorkerReply),
);

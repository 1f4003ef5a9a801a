// The lean floor of a fan-out: a draft-cavage signature made by node:crypto on the thread pool
// (one RSA sign, as Tern's), then a bare node:http POST with a keep-alive agent. No Fedify, no
// queue, no SSRF guard, no bookkeeping. Used on the bench's main thread (fanout-phase.ts, its
// code warm by then) and in a fresh worker thread (lean-worker.ts: the same code cold, as
// Tern's delivery worker is for the first post after it starts).
import { createHash, sign, type KeyObject } from 'node:crypto';
import { Agent, request as httpRequest } from 'node:http';

/** Runs `send` for every item in the list's order, `concurrency` at a time. */
export async function eachInFlight<T>(items: readonly T[], concurrency: number, send: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) await send(items[next++]!);
    }),
  );
}

/** Posts `body` to every recipient, signed as `keyId`, `concurrency` at a time, over `agent`. */
export function leanRound(recipients: readonly string[], body: string, key: KeyObject, keyId: string, concurrency: number, agent: Agent): Promise<void> {
  const bytes = Buffer.from(body);
  const digest = `SHA-256=${createHash('sha256').update(bytes).digest('base64')}`;
  const post = async (url: URL): Promise<void> => {
    const date = new Date().toUTCString();
    const signed = `(request-target): post ${url.pathname}\nhost: ${url.host}\ndate: ${date}\ndigest: ${digest}`;
    const signature = await new Promise<Buffer>((resolve, reject) => sign('sha256', Buffer.from(signed), key, (e, sig) => (e ? reject(e) : resolve(sig))));
    const headers = {
      host: url.host,
      date,
      digest,
      'content-type': 'application/activity+json',
      'content-length': String(bytes.length),
      signature: `keyId="${keyId}",algorithm="rsa-sha256",headers="(request-target) host date digest",signature="${signature.toString('base64')}"`,
    };
    await new Promise<void>((resolve, reject) => {
      const req = httpRequest({ hostname: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers, agent }, (res) => {
        res.resume();
        res.on('end', resolve);
      });
      req.on('error', reject);
      req.end(bytes);
    });
  };
  return eachInFlight(recipients, concurrency, (url) => post(new URL(url)));
}

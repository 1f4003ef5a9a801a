// The signature-verifying worker (a worker_threads entry; see verify-pool.ts). In Node 24 WebCrypto
// `verify` and `digest` run synchronously on the calling thread, so Fedify's verifyRequestDetailed
// (RSA verify, digest, its Request copies and header parsing) is most of what accepting an
// activity costs; here it runs beside the main thread, which keeps SQLite and the processor.
//
// Only the cryptography moves. The main thread has already prechecked the request (dates, digest,
// covered host: signature-precheck.ts) and found the key in its cache; it sends the request's
// parts and the key (a CryptoKey, sent once per worker and key, then named by its keyId). Fedify
// verifies with that key alone: its keyCache answers only for that keyId and the document loader
// has no network, so any other key, a refetch after a failure ("key rotated") or a key of the
// wrong kind ends as "not verified" — and the main thread then runs its own full verification
// (verifyInbound), which fetches and answers as it always did. A "verified" here is Fedify's.
//
// Self-contained on purpose (only packages and type-only imports): Node runs this file from
// source by stripping its types (vitest, tsx), and esbuild bundles it as verify-worker.mjs.
import { verifyRequestDetailed, type HttpMessageSignaturesSpec } from '@fedify/fedify';
import { CryptographicKey } from '@fedify/vocab';
import { parentPort } from 'node:worker_threads';

export interface VerifyJob {
  id: number;
  url: string;
  method: string;
  headers: Array<[string, string]>;
  body: Uint8Array | null;
  spec: HttpMessageSignaturesSpec;
  keyId: string;
  /** The key, when this worker has not been sent it for keyId yet (or it changed). */
  key?: CryptoKey;
  /** Key ids the main thread no longer remembers having sent: forget them. */
  drop?: string[];
}

export type VerifyAnswer = { id: number; verified: boolean } | { ready: true };

const keys = new Map<string, CryptographicKey>();

const noNetwork = (url: string): Promise<never> => Promise.reject(new Error(`no network in the verify worker: ${url}`));

async function verify(job: VerifyJob): Promise<boolean> {
  if (job.drop !== undefined) for (const keyId of job.drop) keys.delete(keyId);
  if (job.key !== undefined) keys.set(job.keyId, new CryptographicKey({ id: new URL(job.keyId), publicKey: job.key }));
  const key = keys.get(job.keyId);
  if (key === undefined) return false;
  const request = new Request(job.url, {
    method: job.method,
    headers: job.headers,
    body: job.body === null ? null : (job.body as Uint8Array<ArrayBuffer>),
  });
  const result = await verifyRequestDetailed(request, {
    spec: job.spec,
    documentLoader: noNetwork,
    contextLoader: noNetwork,
    keyCache: {
      get: (keyId) => Promise.resolve(keyId.href === job.keyId ? key : undefined),
      set: () => Promise.resolve(),
    },
    // The dates were checked on the main thread against the core's clock.
    timeWindow: false,
  });
  return result.verified && result.key.id?.href === job.keyId;
}

const port = parentPort;
if (port !== null) {
  port.on('message', (job: VerifyJob) => {
    verify(job).then(
      (verified) => port.postMessage({ id: job.id, verified } satisfies VerifyAnswer),
      () => port.postMessage({ id: job.id, verified: false } satisfies VerifyAnswer),
    );
  });
  // Loaded (Fedify's modules too): the pool starts sending jobs.
  port.postMessage({ ready: true } satisfies VerifyAnswer);
}

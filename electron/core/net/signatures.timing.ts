// Cost of verifying one inbound activity when the sender's key is cached (the common case), next
// to the bare RSA verification it contains. Run: npx tsx electron/core/net/signatures.timing.ts
import { signRequest, verifyRequestDetailed, type HttpMessageSignaturesSpec } from '@fedify/fedify';
import { CryptographicKey } from '@fedify/vocab';
import { preloadedContextLoader } from './document-loader';
import { createKeyCache } from './key-cache';
import { verifyInbound } from './signatures';

const pair = await crypto.subtle.generateKey(
  { name: 'RSASSA-PKCS1-v1_5', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' },
  true,
  ['sign', 'verify'],
);
const keyId = new URL('https://peer.example/users/alice#main-key');
const keyCache = createKeyCache();
await keyCache.set(keyId, new CryptographicKey({ id: keyId, owner: new URL('https://peer.example/users/alice'), publicKey: pair.publicKey }));
const body = JSON.stringify({ type: 'Create', actor: 'https://peer.example/users/alice', object: { type: 'Note', content: 'x'.repeat(500) } });

async function template(spec: HttpMessageSignaturesSpec): Promise<() => Request> {
  const request = new Request('https://tern.example/inbox', { method: 'POST', headers: { 'content-type': 'application/activity+json' }, body });
  const signed = await signRequest(request, pair.privateKey, keyId, { spec });
  return () => new Request(signed.url, { method: 'POST', headers: signed.headers, body });
}

const data = new TextEncoder().encode('x'.repeat(400));
const signature = await crypto.subtle.sign('RSASSA-PKCS1-v1_5', pair.privateKey, data);

/** Mean microseconds per call over `runs`, after a warm-up. */
async function time(run: () => Promise<unknown>, runs = 2000): Promise<number> {
  for (let i = 0; i < 200; i++) await run();
  const started = performance.now();
  for (let i = 0; i < runs; i++) await run();
  return ((performance.now() - started) / runs) * 1000;
}

for (const spec of ['rfc9421', 'draft-cavage-http-signatures-12'] as const) {
  const make = await template(spec);
  const rows = {
    'crypto.subtle.verify alone (RSA-2048)': await time(() => crypto.subtle.verify('RSASSA-PKCS1-v1_5', pair.publicKey, signature, data)),
    'Fedify verifyRequestDetailed': await time(async () => {
      const result = await verifyRequestDetailed(make(), { spec, keyCache, documentLoader: preloadedContextLoader, timeWindow: false });
      if (!result.verified) throw new Error('not verified');
    }),
    'verifyInbound (prechecks + Fedify + owner)': await time(async () => {
      const result = await verifyInbound(make(), { keyCache, documentLoader: preloadedContextLoader });
      if (!result.ok) throw new Error(result.reason);
    }),
  };
  for (const [label, us] of Object.entries(rows)) console.log(`${spec.padEnd(32)} ${label.padEnd(44)} ${us.toFixed(0).padStart(6)} µs`);
}
console.log(`key fetches: ${keyCache.stats.fetches}`);

// Cost of the LD signature work next to what it rides on: signing one public post's Create
// (done once per activity, whatever the number of recipients) against signing one delivery's
// HTTP request (done per recipient), and verifying a forwarded activity's LD signature with the
// key cached (and an integrity proof's). Run: npx tsx electron/core/net/ld-signatures.timing.ts
import { signObject, signRequest } from '@fedify/fedify';
import { Create, CryptographicKey, Multikey, Note } from '@fedify/vocab';
import { AP_CONTEXT } from '../federation/outbox';
import { preloadedContextLoader } from './document-loader';
import { createKeyCache } from './key-cache';
import { signLdDocument, verifyIntegrityProofs, verifyLdSignature } from './signatures';

const pair = await crypto.subtle.generateKey(
  { name: 'RSASSA-PKCS1-v1_5', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' },
  true,
  ['sign', 'verify'],
);
const actor = 'https://peer.example/users/alice';
const keyId = new URL(`${actor}#main-key`);
const keyCache = createKeyCache();
await keyCache.set(keyId, new CryptographicKey({ id: keyId, owner: new URL(actor), publicKey: pair.publicKey }));
const note = {
  id: `${actor}/statuses/1`,
  type: 'Note',
  attributedTo: actor,
  content: `<p>${'x'.repeat(500)}</p>`,
  to: ['https://www.w3.org/ns/activitystreams#Public'],
  cc: [`${actor}/followers`],
  published: '2026-11-22T09:00:00Z',
  tag: [{ type: 'Hashtag', href: 'https://peer.example/t/tern', name: '#tern' }],
  sensitive: false,
};
const create = { '@context': AP_CONTEXT, id: `${note.id}/activity`, type: 'Create', actor, to: note.to, cc: note.cc, object: note };
const body = JSON.stringify(create);

async function time(run: () => Promise<unknown>, runs = 300): Promise<number> {
  for (let i = 0; i < 30; i++) await run();
  const started = performance.now();
  for (let i = 0; i < runs; i++) await run();
  return ((performance.now() - started) / runs) * 1000;
}

const signed = await signLdDocument(create, { keyId, privateKey: pair.privateKey });
const ed = (await crypto.subtle.generateKey({ name: 'Ed25519' }, true, ['sign', 'verify'])) as CryptoKeyPair;
const edKeyId = new URL(`${actor}#ed`);
await keyCache.set(edKeyId, new Multikey({ id: edKeyId, controller: new URL(actor), publicKey: ed.publicKey }));
const proved = await (
  await signObject(
    new Create({ id: new URL(`${note.id}/activity`), actor: new URL(actor), object: new Note({ id: new URL(note.id), attribution: new URL(actor), content: note.content }) }),
    ed.privateKey,
    edKeyId,
    { contextLoader: preloadedContextLoader },
  )
).toJsonLd({ format: 'compact', contextLoader: preloadedContextLoader });
const deps = { keyCache, documentLoader: preloadedContextLoader, contextLoader: preloadedContextLoader };
const rows = {
  'LD signature of a Create (once per activity)': await time(() => signLdDocument(create, { keyId, privateKey: pair.privateKey })),
  'HTTP signature of one delivery (per recipient)': await time(() =>
    signRequest(new Request('https://tern.example/inbox', { method: 'POST', headers: { 'content-type': 'application/activity+json' } }), pair.privateKey, keyId, {
      spec: 'rfc9421',
      body: new TextEncoder().encode(body).buffer,
    }),
  ),
  'verifyLdSignature, key cached': await time(async () => {
    const result = await verifyLdSignature(signed, actor, deps);
    if (!result.ok) throw new Error(result.reason);
  }),
  'verifyIntegrityProofs (Ed25519), key cached': await time(async () => {
    const result = await verifyIntegrityProofs(proved, actor, deps);
    if (!result.ok) throw new Error(result.reason);
  }),
};
for (const [label, us] of Object.entries(rows)) console.log(`${label.padEnd(50)} ${us.toFixed(0).padStart(7)} µs`);
console.log(`key fetches: ${keyCache.stats.fetches}`);

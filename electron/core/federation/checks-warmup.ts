// The inbox checks worker verifies one request of its own before it takes any from the listener.
// A thread's first verification runs Fedify's key-document parsing (JSON-LD expansion of an
// actor document, the key's import) and the signature checks before V8 has compiled any of it:
// measured here, the first parse of an actor document and its key took 27 ms and the next ones
// 1–2 ms. Without this, the first new sender after the worker started paid for it, and every
// request queued behind that one waited too. Nothing leaves the thread: the request is signed
// with Tern's own key for an actor at a `.invalid` host (a name that never resolves), whose
// document a loader of its own serves, and the key goes to a cache of its own.
import { signRequest } from '@fedify/fedify';
import type { DocumentLoader } from '@fedify/vocab-runtime';
import type { FederationContext } from '../net/federation-context';
import { preloadedContextLoader } from '../net/document-loader';
import { createKeyCache } from '../net/key-cache';
import { exportPublicKeyPem } from '../net/key-files';
import { verifyInbound, type SignatureSpec } from '../net/signatures';

const ORIGIN = 'https://warm-up.invalid';
const ACTOR = `${ORIGIN}/users/warm-up`;
const KEY_ID = `${ACTOR}#main-key`;
const SPECS: SignatureSpec[] = ['draft-cavage-http-signatures-12', 'rfc9421'];

/** Verifies a request signed by each spec Tern accepts; true when both verified (a warm-up that
 * failed costs nothing but its time: the listener's requests are checked as they would be). */
export async function warmUpChecks(fed: Pick<FederationContext, 'keys'>): Promise<boolean> {
  const actor = {
    '@context': ['https://www.w3.org/ns/activitystreams', 'https://w3id.org/security/v1'],
    id: ACTOR,
    type: 'Person',
    preferredUsername: 'warm-up',
    inbox: `${ACTOR}/inbox`,
    publicKey: { id: KEY_ID, owner: ACTOR, publicKeyPem: await exportPublicKeyPem(fed.keys.rsa.publicKey) },
  };
  const documentLoader: DocumentLoader = (url) => {
    if (url === ACTOR || url === KEY_ID) return Promise.resolve({ contextUrl: null, document: actor, documentUrl: ACTOR });
    return preloadedContextLoader(url);
  };
  const keyCache = createKeyCache();
  let verified = 0;
  for (const spec of SPECS) {
    const body = JSON.stringify({ '@context': 'https://www.w3.org/ns/activitystreams', id: `${ACTOR}/likes/${spec}`, type: 'Like', actor: ACTOR, object: `${ORIGIN}/notes/1` });
    const unsigned = new Request(`${ORIGIN}/inbox`, { method: 'POST', headers: { 'content-type': 'application/activity+json' }, body });
    const signed = await signRequest(unsigned, fed.keys.rsa.privateKey, new URL(KEY_ID), { spec });
    const result = await verifyInbound(signed, { documentLoader, contextLoader: preloadedContextLoader, keyCache }, new TextEncoder().encode(body));
    if (result.ok) verified++;
  }
  return verified === SPECS.length;
}

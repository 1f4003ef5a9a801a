// GETs of ActivityPub documents (an actor, a post): plainly first, then signed as the local
// actor when the server refuses an unsigned GET with 401 or 403. Servers in "authorized fetch"
// mode answer unsigned GETs of accounts and posts so: GoToSocial always (it serves only the bare
// key at …/main-key unsigned: internal/processing/fedi/user.go), Mastodon with AUTHORIZED_FETCH,
// Akkoma and Sharkey when their admins ask for it. Without a signature Tern could store no
// account of theirs: a Follow from GoToSocial was retried until it gave up, a boost of a
// GoToSocial post never showed.
//
// An origin that asked for a signature once is asked signed at once from then on (a bounded
// memory per client): no unsigned request thrown away per actor. A signature needs Tern's
// address; while none is set, the plain answer is the answer.
import { ACTIVITY_ACCEPT, ACTIVITY_DOCUMENT_MAX_BYTES } from './document-loader';
import type { FederationContext } from './federation-context';
import { readTextWithin, type HttpClient } from './http-client';
import { signedFetch } from './signatures';

/** Statuses that mean "sign your request" (401 from Mastodon and GoToSocial; 403 from others). */
const WANTS_SIGNATURE = new Set([401, 403]);

/** Origins remembered as wanting signed GETs, per client (so per thread). */
const MAX_SIGNING_ORIGINS = 1_000;
const signingOrigins = new WeakMap<HttpClient, Map<string, true>>();

function originsOf(client: HttpClient): Map<string, true> {
  let origins = signingOrigins.get(client);
  if (origins === undefined) signingOrigins.set(client, (origins = new Map()));
  return origins;
}

function remember(origins: Map<string, true>, origin: string): void {
  origins.delete(origin);
  origins.set(origin, true);
  if (origins.size > MAX_SIGNING_ORIGINS) origins.delete(origins.keys().next().value ?? '');
}

export interface DocumentFetchOptions {
  /** The local actor's key id as published (https://host#main-key), or null while Tern has no
   * address: then nothing is signed. Default: the context's own (FederationContext.signingKeyId). */
  keyId?: string | null;
  maxBodyBytes?: number;
  signal?: AbortSignal;
}

export interface FetchedDocument {
  response: Response;
  text: string;
  /** Whether the answer is to a signed request. */
  signed: boolean;
}

/**
 * The document at `url` as its server answers (any status: the caller judges it), read whole up
 * to `maxBodyBytes` (default: the largest ActivityPub document, 1 MiB). Network errors, a body too
 * large and the client's refusals (a private address…) are thrown as the client throws them.
 */
export async function fetchActivityDocument(fed: Pick<FederationContext, 'client' | 'keys' | 'signingKeyId'>, url: string, options: DocumentFetchOptions = {}): Promise<FetchedDocument> {
  const maxBodyBytes = options.maxBodyBytes ?? ACTIVITY_DOCUMENT_MAX_BYTES;
  const keyId = options.keyId !== undefined ? options.keyId : (fed.signingKeyId?.() ?? null);
  const origins = originsOf(fed.client);
  const origin = new URL(url).origin;
  const headers = { accept: ACTIVITY_ACCEPT };
  const signal = options.signal === undefined ? {} : { signal: options.signal };

  // Signed for `target` only, and no further: a redirect from there is answered as it is, never
  // followed with the author's signature to a server that did not ask for it.
  const signed = async (target: string): Promise<FetchedDocument> => {
    const response = await signedFetch(
      fed.client,
      { url: target, method: 'GET', headers, redirect: 'manual' },
      { keyId: new URL(keyId!), publishedKeyId: keyId!, privateKey: fed.keys.rsa.privateKey, body: null, maxBodyBytes, ...signal },
    );
    return { response, text: await readTextWithin(response, maxBodyBytes), signed: true };
  };

  if (keyId !== null && origins.has(origin)) {
    const answer = await signed(url);
    // Still refused: the key is not the problem (blocked, private); try plainly next time.
    if (WANTS_SIGNATURE.has(answer.response.status)) origins.delete(origin);
    return answer;
  }
  const plain = await fed.client.fetchText(url, { headers, maxBodyBytes, ...signal });
  if (keyId === null || !WANTS_SIGNATURE.has(plain.response.status)) return { ...plain, signed: false };
  // The server that refused is the one asked (a redirect may have led elsewhere): only a refusal
  // on the origin asked for is answered with a signature, to the address that refused.
  const refusedAt = plain.response.url || url;
  if (new URL(refusedAt).origin !== origin) return { ...plain, signed: false };
  const answer = await signed(refusedAt);
  if (!WANTS_SIGNATURE.has(answer.response.status)) remember(origins, origin);
  return answer;
}

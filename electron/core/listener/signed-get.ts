// Who signed a GET: the listener serves followers-only and direct things (objects, their media)
// only to an actor allowed to see them, which it learns from the request's HTTP signature,
// checked against the base URL (http-parts.ts publicUrl) and the key's owner.
import type { LocalActor } from '../federation/identity';
import { verifyInbound } from '../net/signatures';
import { createDocumentLoader } from '../net/document-loader';
import type { HttpClient } from '../net/http-client';
import type { DocumentLoader } from '@fedify/vocab-runtime';

/**
 * The largest key document a signed GET makes this thread read. These are checked here, on the
 * main thread (the inbox's POSTs are checked on their worker): a key document is parsed whole
 * (a 1 MiB one of hostile shape took 140 ms), and real actors are 3–60 KB.
 */
export const SIGNED_GET_KEY_MAX_BYTES = 256 * 1024;
const keyLoaders = new WeakMap<HttpClient, DocumentLoader>();

function keyLoaderOf(client: HttpClient): DocumentLoader {
  let loader = keyLoaders.get(client);
  if (loader === undefined) keyLoaders.set(client, (loader = createDocumentLoader(client, { maxBodyBytes: SIGNED_GET_KEY_MAX_BYTES })));
  return loader;
}
import type { ListenerContext, ListenerCore } from './context';
import { asAddressed, publicUrl } from './http-parts';

/** The actor whose signature is on this GET, or null (unsigned, or not verifiable). */
export async function signedGetActor(core: ListenerCore, c: ListenerContext, local: LocalActor): Promise<string | null> {
  if (c.req.header('signature') === undefined) return null;
  const url = publicUrl(c.req.raw, core.settings.get().baseUrl ?? local.baseUrl);
  const result = await verifyInbound(asAddressed(c.req.raw, url, null), {
    documentLoader: keyLoaderOf(core.fed.client),
    contextLoader: core.fed.contextLoader,
    keyCache: core.fed.keyCache,
    clock: core.clock,
  });
  return result.ok ? result.ownerActorId : null;
}

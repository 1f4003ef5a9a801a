// Who signed a GET: the listener serves followers-only and direct things (objects, their media)
// only to an actor allowed to see them, which it learns from the request's HTTP signature,
// checked against the base URL (http-parts.ts publicUrl) and the key's owner.
import type { LocalActor } from '../federation/identity';
import { verifyInbound } from '../net/signatures';
import type { ListenerContext, ListenerCore } from './context';
import { asAddressed, publicUrl } from './http-parts';

/** The actor whose signature is on this GET, or null (unsigned, or not verifiable). */
export async function signedGetActor(core: ListenerCore, c: ListenerContext, local: LocalActor): Promise<string | null> {
  if (c.req.header('signature') === undefined) return null;
  const url = publicUrl(c.req.raw, core.settings.get().baseUrl ?? local.baseUrl);
  const result = await verifyInbound(asAddressed(c.req.raw, url, null), {
    documentLoader: core.fed.documentLoader,
    contextLoader: core.fed.contextLoader,
    keyCache: core.fed.keyCache,
    clock: core.clock,
  });
  return result.ok ? result.ownerActorId : null;
}

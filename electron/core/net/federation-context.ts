// The federation context (one outbound client, document and context loaders, key cache, our
// keys) built from plain data, so the core on the main thread and the inbox worker each build
// their own from the same data folder: nothing of it can cross a thread.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { DocumentLoader } from '@fedify/fedify';
import { createHttpClient, type HttpClient } from './http-client';
import { createContextLoader, createDocumentLoader, createKeyCache, generateKeyPairFiles, loadKeyPair, type PersistentKeyStore, type TernKeyCache, type TernKeyPairs } from './signatures';
import { KEY_FILES } from './key-files';
import { installFastSubtle } from './fast-subtle';
import { TERN_VERSION } from '../version';

/** What federation needs: the one outbound client, loaders, keys, caches. */
export interface FederationContext {
  client: HttpClient;
  documentLoader: DocumentLoader;
  contextLoader: DocumentLoader;
  keyCache: TernKeyCache;
  keys: TernKeyPairs;
  allowPrivateAddresses: boolean;
  /** The local actor's key id as published (https://host#main-key), or null while Tern has no
   * address: what GETs refused unsigned are signed with (document-fetch.ts). Set by whoever
   * holds the settings (the core, each worker); null until then. */
  signingKeyId: () => string | null;
  /** The certificate authority (PEM) trusted instead of the system's: tests and the bench only. */
  trustedCa?: string;
}

/** Loads our keys from `keysDir` (creating them when missing, unless `create` is false: the
 * workers only read what the core made). `trustedCa`: for loopback HTTPS servers that tests
 * start, never from settings (see HttpClientOptions.trustedCa). */
export async function openFederationContext(keysDir: string, allowPrivateAddresses: boolean, create = true, trustedCa?: string): Promise<FederationContext> {
  // Fedify's digests and RSA verifies on this thread, and its RSA signs on the pool, without WebCrypto's job overhead.
  installFastSubtle();
  const keys = existsSync(join(keysDir, KEY_FILES.rsaPrivate)) || !create ? await loadKeyPair(keysDir) : await generateKeyPairFiles(keysDir);
  const client = createHttpClient({ userAgent: `Tern/${TERN_VERSION}`, allowPrivateAddresses, ...(trustedCa === undefined ? {} : { trustedCa }) });
  const contextLoader = createContextLoader(client);
  return {
    client,
    documentLoader: createDocumentLoader(client),
    contextLoader,
    keyCache: createKeyCache({ contextLoader }),
    keys,
    allowPrivateAddresses,
    signingKeyId: () => null,
    ...(trustedCa === undefined ? {} : { trustedCa }),
  };
}

/** Gives the context a key cache that reads keys it does not hold from `store` (the actors'
 * stored documents: federation/stored-keys.ts) before any is fetched. Called once the database
 * is open, before the context verifies anything: the cache it replaces is empty then. */
export function useKeyStore(fed: FederationContext, store: PersistentKeyStore): void {
  fed.keyCache = createKeyCache({ contextLoader: fed.contextLoader, store });
}

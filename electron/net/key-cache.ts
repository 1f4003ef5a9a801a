// Public keys of remote actors, for verifying HTTP signatures without a fetch per activity.
// Implements Fedify's KeyCache: a bounded in-memory LRU in front of an optional persistent store
// (SQLite later). Fedify itself handles rotation: when a signature fails with a cached key it
// fetches the key again once, bypassing get(), and set()s the fresh one, which replaces ours.
// "Unavailable" answers (fetch failed, no such key) are remembered briefly and in memory only,
// so a peer that was down for a minute is not locked out for good.
import type { FetchKeyErrorResult, KeyCache } from '@fedify/fedify';
import { CryptographicKey, Multikey } from '@fedify/vocab';
import type { DocumentLoader } from '@fedify/vocab-runtime';
import { preloadedContextLoader } from './document-loader';

/** Where keys survive restarts. Values are the key's JSON-LD, as a string. */
export interface PersistentKeyStore {
  get(keyId: string): Promise<string | null>;
  set(keyId: string, json: string): Promise<void>;
}

export interface KeyCacheStats {
  /** get() answered from memory or the persistent store (including "unavailable"). */
  hits: number;
  /** get() had nothing: Fedify will fetch. */
  misses: number;
  /** Documents fetched from the network while verifying (counted by verifyInbound). */
  fetches: number;
  /** Keys dropped to stay within maxKeys. */
  evictions: number;
}

export interface KeyCacheOptions {
  /** Default 10 000. */
  maxKeys?: number;
  store?: PersistentKeyStore;
  /** How long "this key is unavailable" is believed. Default 5 minutes. */
  unavailableTtlMs?: number;
  /** Resolves contexts when (de)serialising keys for the store. Default: preloaded only. */
  contextLoader?: DocumentLoader;
  now?: () => number;
}

export interface TernKeyCache extends KeyCache {
  readonly stats: KeyCacheStats;
  readonly size: number;
  /** Forget a key everywhere in memory (e.g. on the owner's Delete or Update). */
  evict(keyId: URL | string): void;
  /** True while a recent fetch of this key failed. */
  isUnavailable(keyId: URL | string): boolean;
  /** Owners confirmed for keys that live outside their actor's document. */
  confirmedOwner(keyId: string): string | undefined;
  rememberOwner(keyId: string, ownerId: string): void;
  /** Optional Fedify hooks: why the last fetch of a key failed. */
  getFetchError(keyId: URL): Promise<FetchKeyErrorResult | undefined>;
  setFetchError(keyId: URL, error: FetchKeyErrorResult | null): Promise<void>;
}

type PublicKey = CryptographicKey | Multikey;

/** Map.set that drops the oldest entries past `max`, so hostile key ids cannot fill memory. */
function setBounded<K, V>(map: Map<K, V>, key: K, value: V, max: number): void {
  map.delete(key);
  map.set(key, value);
  for (const oldest of map.keys()) {
    if (map.size <= max) break;
    map.delete(oldest);
  }
}

export function createKeyCache(options: KeyCacheOptions = {}): TernKeyCache {
  const maxKeys = options.maxKeys ?? 10_000;
  const ttl = options.unavailableTtlMs ?? 5 * 60_000;
  const now = options.now ?? Date.now;
  const contextLoader = options.contextLoader ?? preloadedContextLoader;
  const keys = new Map<string, PublicKey>();
  const unavailable = new Map<string, number>(); // keyId -> expires at
  const fetchErrors = new Map<string, { error: FetchKeyErrorResult; expires: number }>();
  const owners = new Map<string, string>();
  const stats: KeyCacheStats = { hits: 0, misses: 0, fetches: 0, evictions: 0 };

  const remember = (href: string, key: PublicKey) => {
    keys.delete(href);
    keys.set(href, key);
    while (keys.size > maxKeys) {
      const oldest = keys.keys().next().value;
      if (oldest === undefined) break;
      keys.delete(oldest);
      owners.delete(oldest);
      stats.evictions++;
    }
  };

  const stillUnavailable = (href: string): boolean => {
    const expires = unavailable.get(href);
    if (expires === undefined) return false;
    if (expires > now()) return true;
    unavailable.delete(href);
    return false;
  };

  const parse = async (json: string): Promise<PublicKey | undefined> => {
    const value: unknown = JSON.parse(json);
    for (const cls of [CryptographicKey, Multikey]) {
      try {
        return await cls.fromJsonLd(value, { documentLoader: contextLoader, contextLoader });
      } catch {
        // not this class; try the next
      }
    }
    return undefined;
  };

  return {
    stats,
    get size() {
      return keys.size;
    },

    async get(keyId) {
      const href = keyId.href;
      if (stillUnavailable(href)) {
        stats.hits++;
        return null;
      }
      const inMemory = keys.get(href);
      if (inMemory !== undefined) {
        remember(href, inMemory); // refresh its place in the LRU order
        stats.hits++;
        return inMemory;
      }
      // A failing store only costs a fetch; verification must not fail because of it.
      const stored = options.store === undefined ? null : await options.store.get(href).catch(() => null);
      const key = stored === null ? undefined : await parse(stored).catch(() => undefined);
      if (key === undefined) {
        stats.misses++;
        return undefined;
      }
      remember(href, key);
      stats.hits++;
      return key;
    },

    async set(keyId, key) {
      const href = keyId.href;
      if (key === null) {
        keys.delete(href);
        setBounded(unavailable, href, now() + ttl, maxKeys);
        return;
      }
      unavailable.delete(href);
      remember(href, key);
      if (options.store !== undefined) {
        const json = await key.toJsonLd({ format: 'compact', contextLoader });
        await options.store.set(href, JSON.stringify(json)).catch(() => undefined); // kept in memory regardless
      }
    },

    evict(keyId) {
      const href = typeof keyId === 'string' ? keyId : keyId.href;
      keys.delete(href);
      owners.delete(href);
      unavailable.delete(href);
      fetchErrors.delete(href);
    },

    isUnavailable(keyId) {
      return stillUnavailable(typeof keyId === 'string' ? keyId : keyId.href);
    },

    confirmedOwner: (keyId) => owners.get(keyId),
    rememberOwner(keyId, ownerId) {
      setBounded(owners, keyId, ownerId, maxKeys);
    },

    getFetchError(keyId) {
      const entry = fetchErrors.get(keyId.href);
      if (entry === undefined || entry.expires <= now()) {
        fetchErrors.delete(keyId.href);
        return Promise.resolve(undefined);
      }
      return Promise.resolve(entry.error);
    },

    setFetchError(keyId, error) {
      if (error === null) fetchErrors.delete(keyId.href);
      else setBounded(fetchErrors, keyId.href, { error, expires: now() + ttl }, maxKeys);
      return Promise.resolve();
    },
  };
}

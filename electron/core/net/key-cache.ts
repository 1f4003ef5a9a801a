// Public keys of remote actors, for verifying HTTP signatures without a fetch per activity.
// Implements Fedify's KeyCache: a bounded in-memory LRU in front of an optional persistent store
// (the app's: the actors' stored documents, read-only — federation/stored-keys.ts). Fedify itself
// handles rotation: when a signature fails with a cached key it
// fetches the key again once, bypassing get(), and set()s the fresh one, which replaces ours.
// "Unavailable" answers (fetch failed, no such key) are remembered briefly and in memory only,
// so a peer that was down for a minute is not locked out for good.
import type { FetchKeyErrorResult, KeyCache } from '@fedify/fedify';
import { CryptographicKey, Multikey } from '@fedify/vocab';
import type { DocumentLoader } from '@fedify/vocab-runtime';
import { preloadedContextLoader } from './document-loader';

/** A key as a store holds it: its JSON-LD as a string, and the actor whose own document lists it
 * (when the store knows: then its owner is confirmed without fetching that document). */
export interface StoredKey {
  json: string;
  owner?: string;
}

/** Where keys survive restarts. Values are the key's JSON-LD, as a string (or a StoredKey). A
 * store without set() is read-only: keys fetched are kept in memory only. */
export interface PersistentKeyStore {
  get(keyId: string): Promise<string | StoredKey | null>;
  set?(keyId: string, json: string): Promise<void>;
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

/** A per-verification view of the cache whose misses are single-flight (see singleFlight()). */
export interface SingleFlightKeyCache extends KeyCache {
  getFetchError(keyId: URL): Promise<FetchKeyErrorResult | undefined>;
  setFetchError(keyId: URL, error: FetchKeyErrorResult | null): Promise<void>;
  /** Ends this view: keys it claimed but never set() stop being awaited by others. */
  release(): void;
}

export interface TernKeyCache extends KeyCache {
  readonly stats: KeyCacheStats;
  /**
   * A view for one verification. Its get() claims a missing key (answers undefined, so the
   * caller fetches it); while that claim stands, the same miss in other views waits for the
   * claimant's set() instead of fetching the key again. release() when the verification ends.
   */
  singleFlight(): SingleFlightKeyCache;
  readonly size: number;
  /** Forget a key everywhere in memory (e.g. on the owner's Delete or Update), under whichever
   * id it is kept. */
  evict(keyId: URL | string): void;
  /** True while a recent fetch of this key failed. */
  isUnavailable(keyId: URL | string): boolean;
  /** What the cache holds for a key — the key, null (unavailable) or undefined (nothing) —
   * without counting a hit or a miss, nor claiming its fetch: for a look in other places than
   * where Fedify looks (an LD signature's creator in another form, ld-signature-key.ts). */
  peek(keyId: URL | string): Promise<PublicKey | null | undefined>;
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
  // Keys being fetched by a claimant (a singleFlight view): settled by set() or its release().
  const inflight = new Map<string, { settled: Promise<void>; settle: () => void }>();
  const settle = (href: string) => {
    const entry = inflight.get(href);
    if (entry === undefined) return;
    inflight.delete(href);
    entry.settle();
  };

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

  /** The cached answer without counting: a key, null (unavailable), or undefined (unknown). */
  const lookup = async (href: string): Promise<PublicKey | null | undefined> => {
    if (stillUnavailable(href)) return null;
    const inMemory = keys.get(href);
    if (inMemory !== undefined) {
      remember(href, inMemory); // refresh its place in the LRU order
      return inMemory;
    }
    // A failing store only costs a fetch; verification must not fail because of it.
    const stored = options.store === undefined ? null : await options.store.get(href).catch(() => null);
    if (stored === null) return undefined;
    const { json, owner } = typeof stored === 'string' ? { json: stored, owner: undefined } : stored;
    const key = await parse(json).catch(() => undefined);
    if (key === undefined) return undefined;
    remember(href, key);
    if (owner !== undefined) setBounded(owners, href, owner, maxKeys);
    return key;
  };

  const cache: TernKeyCache = {
    stats,
    get size() {
      return keys.size;
    },

    async get(keyId) {
      const key = await lookup(keyId.href);
      if (key === undefined) stats.misses++;
      else stats.hits++;
      return key;
    },

    singleFlight() {
      const claimed = new Map<string, { settled: Promise<void>; settle: () => void }>();
      return {
        async get(keyId) {
          const href = keyId.href;
          let key = await lookup(href);
          const pending = key === undefined ? inflight.get(href) : undefined;
          if (pending !== undefined) {
            await pending.settled;
            key = await lookup(href);
          }
          if (key !== undefined) {
            stats.hits++;
            return key;
          }
          stats.misses++;
          if (!inflight.has(href)) {
            let resolve = () => {};
            const entry = { settled: new Promise<void>((r) => (resolve = r)), settle: () => resolve() };
            inflight.set(href, entry);
            claimed.set(href, entry);
          }
          return undefined;
        },
        set: (keyId, key) => cache.set(keyId, key),
        getFetchError: (keyId) => cache.getFetchError(keyId),
        setFetchError: (keyId, error) => cache.setFetchError(keyId, error),
        release() {
          for (const [href, entry] of claimed) if (inflight.get(href) === entry) settle(href);
          claimed.clear();
        },
      };
    },

    async set(keyId, key) {
      const href = keyId.href;
      if (key === null) {
        keys.delete(href);
        setBounded(unavailable, href, now() + ttl, maxKeys);
        // Waiters are let go by setFetchError, which Fedify calls next, so they see the reason too.
        return;
      }
      unavailable.delete(href);
      remember(href, key);
      settle(href); // waiters find the key in memory; the store write need not hold them up
      if (options.store?.set !== undefined) {
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
      // The key kept under other ids too (an LD signature's creator written in another form,
      // ld-signature-key.ts, or an actor id Fedify took its one key for) goes with it.
      for (const [other, key] of keys) {
        if (key.id?.href !== href) continue;
        keys.delete(other);
        owners.delete(other);
      }
    },

    isUnavailable(keyId) {
      return stillUnavailable(typeof keyId === 'string' ? keyId : keyId.href);
    },

    peek: (keyId) => lookup(typeof keyId === 'string' ? keyId : keyId.href),

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
      settle(keyId.href);
      return Promise.resolve();
    },
  };
  return cache;
}

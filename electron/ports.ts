// The shared port types: what services, the listener and the IPC handlers take as dependencies
// from the core, declared here (a leaf: it imports only net/ types) so that none of them has to
// import the composition root (core.ts), which builds these and wires everything together.
import type { DocumentLoader } from '@fedify/fedify';
import type { HttpClient } from './net/http-client';
import type { TernKeyCache } from './net/key-cache';
import type { TernKeyPairs } from './net/key-files';

/** What federation needs from the core: the one outbound client, loaders, keys, caches. */
export interface FederationContext {
  client: HttpClient;
  documentLoader: DocumentLoader;
  contextLoader: DocumentLoader;
  keyCache: TernKeyCache;
  keys: TernKeyPairs;
  allowPrivateAddresses: boolean;
}

export interface ListenerAddress {
  host: string;
  /** 0: the OS picks a free port. */
  port: number;
}

export interface ListenerStatus {
  running: boolean;
  /** Where it listens, when running. */
  url: string | null;
  /** Why the last start failed, if it did. */
  error: string | null;
}

/** The part of the listener's control a service may use (Settings starts, moves, stops it). */
export interface ListenerSwitch {
  /** Starts (or restarts) on `address`, default the settings' host and port. */
  start(address?: ListenerAddress): Promise<unknown>;
  stop(): Promise<void>;
  status(): ListenerStatus;
}

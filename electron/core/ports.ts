// The shared port types: what services, the listener and the IPC handlers take as dependencies
// from the core, declared here (a leaf: it imports only net/ types) so that none of them has to
// import the composition root (core.ts), which builds these and wires everything together.

/** What federation needs from the core: the one outbound client, loaders, keys, caches (built
 * by net/federation-context.ts, which the inbox worker uses too). */
export type { FederationContext } from './net/federation-context';

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

// The messages between the bench (which runs Tern) and its "rest of the fediverse" child
// process (remote.ts): remote actors and their signed inbox traffic, and the inbox servers the
// fan-out delivers to. Kept in another process so Tern's CPU time and memory are Tern's alone.

export interface SetupActors {
  type: 'setupActors';
  actors: number;
}
export interface Presign {
  type: 'presign';
  /** Tern's inbox URL, as signed (the public URL = the listener's URL here). */
  inbox: string;
  count: number;
  /** Our posts, which half the activities Like. */
  likeTargets: string[];
  /** Bytes of a Create's JSON. */
  createBytes: number;
  /** Sign every request with this spec (default: rfc9421 and draft-cavage alternating in pairs). */
  spec?: 'draft-cavage-http-signatures-12';
}
export interface Blast {
  type: 'blast';
  concurrency: number;
  /** The slice of the presigned activities to send: [from, to). */
  from: number;
  to: number;
  /** Send each request's number (x-bench-seq) and return when each was sent (BENCH_ACCEPT_TRACE). */
  trace?: boolean;
}
export interface StartInboxServers {
  type: 'startInboxServers';
  servers: number;
  /** HTTPS with the test certificate (test/fixtures/tls), closing each connection after its
   * answer: every delivery is a new connection, as for posts minutes apart. */
  tls?: boolean;
}
export interface InboxServerStats {
  type: 'inboxServerStats';
  /** Keep this many full requests (headers + body) for the parent to verify. */
  samples: number;
  reset: boolean;
}
/** Requests the actor server answered so far, by kind (actor, webfinger, other). */
export interface ActorGets {
  type: 'actorGets';
  reset: boolean;
}
export interface Close {
  type: 'close';
}
export type Command = SetupActors | Presign | Blast | ActorGets | StartInboxServers | InboxServerStats | Close;

export interface ActorsReady {
  type: 'actorsReady';
  origin: string;
  actorIds: string[];
}
export interface Presigned {
  type: 'presigned';
  count: number;
  ms: number;
  bySpec: Record<string, number>;
  byType: Record<string, number>;
  meanBodyBytes: number;
}
export interface BlastDone {
  type: 'blastDone';
  sent: number;
  wallMs: number;
  statuses: Record<string, number>;
  /** Accept latency of each request (request written → response read), ms. */
  latenciesMs: number[];
  failures: string[];
  /** With `trace`: each request's number, send time (ms since the epoch) and latency. */
  trace?: Array<{ seq: number; sentAt: number; writtenAt: number; ms: number }>;
  /** With `trace`: the remote process's own CPU and loop delay during the blast (the client's share). */
  remote?: { cpuUs: number; loopDelayP99Ms: number; loopDelayMaxMs: number };
}
export interface ActorGetsReply {
  type: 'actorGetsReply';
  gets: Record<string, number>;
}
export interface InboxServersReady {
  type: 'inboxServersReady';
  origins: string[];
}
export interface SampledRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: string;
}
export interface InboxServerStatsReply {
  type: 'inboxServerStatsReply';
  /** Requests per server origin. */
  perServer: Record<string, number>;
  total: number;
  withSignature: number;
  withSignatureInput: number;
  /** Distinct request paths (recipient inboxes) seen. */
  distinctPaths: number;
  firstAt: number | null;
  lastAt: number | null;
  samples: SampledRequest[];
  /** CPU the remote process used since the last reset (µs): the receivers' share of the cores. */
  cpuUs: number;
  /** Requests that came over a resumed TLS session (HTTPS servers only). */
  tlsResumed: number;
  /** Connections the servers accepted since the last reset (TCP, or TLS). */
  connections: number;
}
export interface Failed {
  type: 'failed';
  error: string;
}
export type Reply = ActorsReady | Presigned | BlastDone | ActorGetsReply | InboxServersReady | InboxServerStatsReply | Failed;

// What the listener's routes share: the slice of the core they use, the app's options, and the
// response helpers every route answers with.
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { Db } from '../../../db/client';
import type { AuthorService } from '../federation/actions';
import type { LocalActor } from '../federation/identity';
import type { IndieAuthService } from '../indieauth/service';
import type { MediaService } from '../media/service';
import type { FederationContext } from '../ports';
import type { SettingsStore } from '../settings';
import type { InboxEvents, QueuedActivity } from '../federation/inbox-events';
import type { InboxCheck, InboxPost } from '../federation/inbox';
import { PAGE_HEADERS } from './pages';
import type { NotificationService } from '../notifications/service';
import type { PollService } from '../federation/polls/service';
import type { SearchService } from '../search/service';

/** The part of the core the listener reads (the core itself is one; tests build smaller ones). */
export interface ListenerCore {
  db: Db;
  fed: FederationContext;
  clock: () => Date;
  settings: SettingsStore;
  /** The local actor, or null until the base URL and user name are set. */
  identity(): LocalActor | null;
  inboxEvents?: InboxEvents;
  /** Checks an inbox POST on another thread (the core's inbox checks worker); null when that
   * thread is not up, and then the listener checks on its own (federation/inbox.ts either way).
   * The row to store comes back: the listener stores it (storeInboxPost). */
  inboxAccept?: (post: InboxPost) => Promise<InboxCheck> | null;
  /** IndieAuth and Micropub answer 503 without these (media: the media endpoint, files in creates). */
  services?: { indieauth?: IndieAuthService; author?: AuthorService; media?: MediaService; notifications?: NotificationService; polls?: PollService; search?: SearchService };
  /** Media routes answer 404 without it. */
  paths?: { uploads: string };
}

export interface ListenerTimeouts {
  /** From a request's first byte to the end of its headers. */
  headersMs: number;
  /** From a request's first byte to the end of its body. */
  requestMs: number;
  /** The same for a file upload (a multipart/form-data body: media, a profile picture,
   * Micropub): large, and often sent from a phone. */
  uploadMs: number;
  /** An idle kept-alive connection. */
  keepAliveMs: number;
}

export interface ListenerAppOptions {
  /** Called after an activity is queued (besides core.inboxEvents), e.g. to wake a loop. */
  onQueued?: (queued: QueuedActivity) => void;
  /** One line per refused inbox POST and per internal error. Default: silence. */
  log?: (line: string) => void;
  /** Largest inbox body accepted. Default 1 MiB. */
  maxInboxBytes?: number;
  /** LD-signature / proof checks of forwarded activities run at once (default 2; past it, 503). */
  embeddedChecksAtOnce?: number;
  /** node:http's deadlines, ms (server.ts LISTENER_TIMEOUTS by default; shorter in tests). */
  timeouts?: Partial<ListenerTimeouts>;
  /** POST /webmention limits per window (default 10 per source host, 60 in all, per minute). */
  webmentionRateLimit?: { perSourceHost?: number; total?: number; windowMs?: number };
}

export interface ListenerEnv {
  Variables: { local: LocalActor };
}
export type ListenerContext = Context<ListenerEnv>;

export const ACTIVITY_JSON = 'application/activity+json';

export function activityJson(c: Context, doc: unknown, status: ContentfulStatusCode = 200): Response {
  return c.body(JSON.stringify(doc), status, { 'Content-Type': ACTIVITY_JSON, Vary: 'Accept' });
}

export function html(c: Context, body: string, status: ContentfulStatusCode = 200): Response {
  return c.body(body, status, { ...PAGE_HEADERS, Vary: 'Accept' });
}

export function problem(c: Context, status: ContentfulStatusCode, error: string, headers: Record<string, string> = {}): Response {
  return c.body(JSON.stringify({ error }), status, { 'Content-Type': 'application/json', ...headers });
}

/** The answer while the disk (full, read-only) stores nothing: nothing was stored, and a sender
 * that retries later will be heard. */
export const STORAGE_UNAVAILABLE = { status: 503, error: 'Tern cannot store anything right now; try again later', retryAfterSeconds: 300 } as const;

/** `?page=N` (1-based): null when absent, undefined when not a page number. */
export function pageParam(value: string | undefined): number | null | undefined {
  if (value === undefined) return null;
  if (!/^\d{1,6}$/.test(value)) return undefined;
  const page = Number(value);
  return page >= 1 ? page : undefined;
}

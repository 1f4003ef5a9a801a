// Resolving the people a post mentions, without ever blocking an offline post: from the actor
// cache first (by handle, by id), then — only when online — WebFinger and a fetch, each with a
// short deadline. What cannot be resolved now but may be later (offline, server down) is
// DEFERRED: the post is queued with an `acct:`/`actor:` address for the delivery loop to
// resolve (deferred.ts). What is known not to exist stays plain text, as on microblog.pub.
import type { Actor } from '../../../../db/schema';
import { BadInputError, NotFoundError } from '../../errors';
import { findActor, getOrFetchActor } from '../actors';
import { httpUrl } from '../ap';
import { findActorByHandle, parseHandle, resolveHandle } from '../lookup';
import type { ActionDeps } from './deps';
import type { ResolvedMention } from './markdown';
import { isLocalActorId, type LocalActor } from '../identity';

/** How long posting waits for one remote look-up before deferring it to delivery time. */
export const MENTION_LOOKUP_MS = 4_000;

/** Handles in the text are looked up this many at a time, the thread given back between them:
 * all at once, a post naming 3,000 people set up a query, a WebFinger request and its failure
 * for each in the same few turns — 600 ms of the main thread (the Mastodon API and Micropub post
 * there). Those not begun within MENTION_LOOKUP_MS are deferred as when offline, so a post waits
 * no longer for thousands than for a few. */
const LOOKUPS_AT_ONCE = 8;

export interface MentionResolution {
  resolved: ResolvedMention[];
  /** Handles to resolve at delivery time (acct: addresses). */
  deferredHandles: string[];
  /** Actor ids whose documents are not cached (actor: addresses, already tagged). */
  uncachedActors: string[];
}

export function mentionOf(row: Actor): ResolvedMention {
  return { href: row.apId, name: row.handle ?? row.apId };
}

function withDeadline<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('look-up took too long')), ms);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

/**
 * Resolves handles written in the text and people named explicitly (handles or actor URLs).
 * Explicit entries that are known not to be accounts are refused (the author asked for them);
 * handles in the text that do not exist stay plain text.
 */
export async function resolveMentions(
  deps: ActionDeps,
  local: LocalActor,
  input: { textHandles: string[]; explicit: string[] },
): Promise<MentionResolution> {
  const out: MentionResolution = { resolved: [], deferredHandles: [], uncachedActors: [] };
  const lookupDeps = { db: deps.db, fed: deps.fed, clock: deps.clock, local };

  const byHandle = async (handle: string, explicit: boolean, late = false) => {
    // Named as written, so the text's @user@host is the one linked.
    const cached = findActorByHandle(deps.db, handle);
    if (cached) return out.resolved.push({ href: cached.apId, name: handle });
    if (!deps.isOnline() || late) return out.deferredHandles.push(handle);
    try {
      const row = await withDeadline(resolveHandle(lookupDeps, handle), MENTION_LOOKUP_MS);
      out.resolved.push({ href: row.apId, name: handle });
    } catch (error) {
      if (error instanceof NotFoundError || error instanceof BadInputError) {
        if (explicit) throw new BadInputError(`${handle} could not be found: ${error.message}`);
        return; // stays plain text
      }
      out.deferredHandles.push(handle);
    }
  };

  const byId = async (url: string) => {
    const cached = findActor(deps.db, url);
    if (cached) return out.resolved.push(mentionOf(cached));
    if (deps.isOnline()) {
      try {
        return out.resolved.push(mentionOf(await withDeadline(getOrFetchActor(lookupDeps, url), MENTION_LOOKUP_MS)));
      } catch (error) {
        if (error instanceof NotFoundError) throw new BadInputError(`${url} is not an account: ${error.message}`);
      }
    }
    // Tagged and addressed now; its inbox is found at delivery time.
    out.resolved.push({ href: url, name: url });
    out.uncachedActors.push(url);
  };

  // The author is never a recipient of their own post, however they are named: by handle, or by
  // actor id with or without the slash Fedify adds to a bare origin (interop-notes).
  const isAuthor = (handle: string) => handle.toLowerCase() === local.handle.toLowerCase();
  const handles = new Set(input.textHandles.filter((h) => !isAuthor(h)));
  const queue = [...handles];
  const begun = performance.now();
  const lane = async () => {
    for (let handle = queue.shift(); handle !== undefined; handle = queue.shift()) {
      await byHandle(handle, false, performance.now() - begun >= MENTION_LOOKUP_MS);
      await new Promise((resolve) => setImmediate(resolve));
    }
  };
  await Promise.all(Array.from({ length: Math.min(LOOKUPS_AT_ONCE, queue.length) }, lane));
  for (const entry of input.explicit) {
    const url = httpUrl(entry.trim());
    if (url) {
      if (!isLocalActorId(url, local)) await byId(url);
    } else {
      const parsed = parseHandle(entry);
      if (!parsed) throw new BadInputError(`“${entry}” is neither a handle (@user@host) nor an account URL.`);
      if (!handles.has(parsed.handle) && !isAuthor(parsed.handle)) await byHandle(parsed.handle, true);
    }
  }
  return out;
}

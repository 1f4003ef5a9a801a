// What `outgoing_activity.recipient` may hold. Usually an inbox URL (an actor's inbox or a
// server's shared inbox). When a post is written offline to someone whose inbox is not cached,
// the row is queued with the person's ADDRESS instead, and the delivery loop resolves it to an
// inbox when it is online (see loop.ts, "resolution step"):
//   acct:user@host            a mention written as @user@host, found by WebFinger (RFC 7565)
//   actor:https://host/u/x    an actor known by id whose document is not cached yet
//   webmention:https://page   a Webmention to that page, whose endpoint is still to be discovered
// Anything else is an inbox URL and is POSTed to as it is.

export type Recipient =
  | { kind: 'inbox'; url: string }
  | { kind: 'acct'; user: string; host: string; handle: string }
  | { kind: 'actor'; url: string }
  | { kind: 'webmention'; url: string };

const ACCT = 'acct:';
const ACTOR = 'actor:';
const WEBMENTION = 'webmention:';

export function acctAddress(handle: string): string {
  return `${ACCT}${handle.replace(/^@/, '')}`;
}

export function actorAddress(actorId: string): string {
  return `${ACTOR}${actorId}`;
}

export function webmentionAddress(target: string): string {
  return `${WEBMENTION}${target}`;
}

/** An address still to be resolved to an inbox (not an inbox URL). */
export function isAddress(recipient: string): boolean {
  return recipient.startsWith(ACCT) || recipient.startsWith(ACTOR) || recipient.startsWith(WEBMENTION);
}

export function parseRecipient(recipient: string): Recipient | null {
  if (recipient.startsWith(ACCT)) {
    const m = /^([^@\s]+)@([^@\s]+)$/.exec(recipient.slice(ACCT.length));
    return m ? { kind: 'acct', user: m[1]!, host: m[2]!.toLowerCase(), handle: `@${m[1]}@${m[2]!.toLowerCase()}` } : null;
  }
  const prefix = [ACTOR, WEBMENTION].find((p) => recipient.startsWith(p)) ?? '';
  const url = recipient.slice(prefix.length);
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return null;
  } catch {
    return null;
  }
  return prefix === ACTOR ? { kind: 'actor', url } : prefix === WEBMENTION ? { kind: 'webmention', url } : { kind: 'inbox', url };
}

/** The server a row goes to, for the per-host limit and for people to read. */
export function hostOfRecipient(recipient: string): string {
  const parsed = parseRecipient(recipient);
  if (!parsed) return recipient;
  if (parsed.kind === 'acct') return parsed.host;
  return new URL(parsed.url).host;
}

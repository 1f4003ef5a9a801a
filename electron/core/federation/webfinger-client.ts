// WebFinger as a client, through the one safe HTTP client (SSRF guard at connect time, timeout,
// body cap) — Fedify's lookupWebFinger uses the global fetch, so it is not used. WebFinger is
// https-only; plain http only for loopback hosts when private addresses are allowed (tests).
import type { FederationContext } from '../ports';
import { BadInputError, NotFoundError, UnavailableError } from '../errors';
import { BlockedAddressError, HostNotFoundError, UnsupportedSchemeError } from '../net/errors';
import { httpUrl, isObject, str, type Json } from './ap';

function isLoopbackHost(host: string): boolean {
  const name = host.replace(/:\d+$/, '').replace(/^\[|\]$/g, '');
  return name === 'localhost' || name === '::1' || /^127\./.test(name);
}

/** A WebFinger answer is a few links (Mastodon's: about 1 KB); more is not read, nor parsed on
 * the app's thread. */
export const WEBFINGER_MAX_BYTES = 64 * 1024;

async function webfinger(fed: FederationContext, host: string, resource: string, what: string): Promise<Json> {
  const scheme = fed.allowPrivateAddresses && isLoopbackHost(host) ? 'http' : 'https';
  const url = `${scheme}://${host}/.well-known/webfinger?resource=${encodeURIComponent(resource)}`;
  let res: Awaited<ReturnType<FederationContext['client']['fetchJson']>>;
  try {
    res = await fed.client.fetchJson(url, { headers: { accept: 'application/jrd+json, application/json' }, maxBodyBytes: WEBFINGER_MAX_BYTES });
  } catch (error) {
    if (error instanceof BlockedAddressError || error instanceof UnsupportedSchemeError || error instanceof HostNotFoundError) {
      throw new NotFoundError(`${what} cannot be looked up: ${(error as Error).message}`);
    }
    throw new UnavailableError(`Could not reach ${host} to find ${what}: ${(error as Error).message}`);
  }
  const status = res.response.status;
  if (status === 404 || status === 410) throw new NotFoundError(`${host} has no account ${what}.`);
  if (status >= 500 || status === 429) throw new UnavailableError(`${host} answered HTTP ${status} when asked for ${what}.`);
  if (status >= 400 || !isObject(res.json)) throw new NotFoundError(`${host} did not answer WebFinger for ${what} (HTTP ${status}).`);
  return res.json;
}

/** The actor id a WebFinger handle points to. */
export async function webfingerActorId(fed: FederationContext, user: string, host: string): Promise<string> {
  const jrd = await webfinger(fed, host, `acct:${user}@${host}`, `@${user}@${host}`);
  const links = Array.isArray(jrd.links) ? jrd.links : [];
  for (const link of links) {
    if (!isObject(link) || link.rel !== 'self') continue;
    const type = str(link.type) ?? '';
    const href = httpUrl(link.href);
    if (href && (type.includes('activity+json') || type.includes('ld+json'))) return href;
  }
  throw new NotFoundError(`@${user}@${host} has no ActivityPub actor.`);
}

/** The `acct:` subject the actor's own server gives for an actor URL, as user and domain. */
export async function webfingerSubjectOf(fed: FederationContext, actorId: string): Promise<{ user: string; domain: string } | null> {
  let host: string;
  try {
    host = new URL(actorId).host;
  } catch {
    throw new BadInputError(`“${actorId}” is not a URL.`);
  }
  const jrd = await webfinger(fed, host, actorId, actorId);
  const subject = str(jrd.subject);
  const m = subject ? /^acct:([^@\s]+)@([^@\s]+)$/.exec(subject) : null;
  return m ? { user: m[1]!, domain: m[2]!.toLowerCase() } : null;
}

// Fetching a remote object the inbox needs (a boosted post, a forwarded reply) through the one
// SSRF-guarded client, before any transaction opens. The document must be the one asked for:
// its id is checked, so a server cannot pass off an object under another server's id.
// Errors say whether trying again can help: NotFoundError (gone, refused, not an object) is
// final; UnavailableError (network, 5xx) is worth a retry.
import { NotFoundError, UnavailableError } from '../../errors';
import { fetchActivityDocument } from '../../net/document-fetch';
import { parseBoundedJson } from '../../net/bounded-json';
import {
  BlockedAddressError,
  BodyTooLargeError,
  InvalidJsonError,
  TooManyRedirectsError,
  UnsupportedSchemeError,
} from '../../net/errors';
import type { FederationContext } from '../../ports';
import { httpUrl, isObject, str, typeOf, type Json } from '../ap';
import { originOf, sameId } from './context';

/** The object's server says it is gone (404, 410): what a Delete relayed by someone else is
 * checked against. */
export class ObjectGoneError extends NotFoundError {
  override name = 'ObjectGoneError';
}

const PERMANENT = [BlockedAddressError, BodyTooLargeError, InvalidJsonError, TooManyRedirectsError, UnsupportedSchemeError];

export async function fetchRemoteObject(fed: FederationContext, url: string): Promise<Json> {
  if (!httpUrl(url)) throw new NotFoundError(`“${url}” is not an http(s) URL.`);
  let json: unknown;
  let status: number;
  let finalUrl: string;
  let text: string;
  try {
    // Signed when the server refuses an unsigned GET (authorized fetch: GoToSocial, some Mastodons).
    const res = await fetchActivityDocument(fed, url);
    status = res.response.status;
    text = res.text;
    finalUrl = res.response.url || url;
  } catch (error) {
    if (PERMANENT.some((cls) => error instanceof cls)) throw new NotFoundError(`Could not fetch ${url}: ${(error as Error).message}`);
    throw new UnavailableError(`Could not fetch ${url}: ${(error as Error).message}`);
  }
  if (status === 404 || status === 410) throw new ObjectGoneError(`${url} is gone (HTTP ${status}).`);
  // 401/403 even to a signed request (or no address to sign with): refused, not down.
  if (status === 401 || status === 403) {
    throw new NotFoundError(`${url} is not available (HTTP ${status}).`);
  }
  if (status >= 400) throw new UnavailableError(`${originOf(url) ?? url} answered HTTP ${status} for ${url}.`);
  try {
    json = parseBoundedJson(text);
  } catch (cause) {
    throw new NotFoundError(`Could not fetch ${url}: ${new InvalidJsonError(url, cause).message}`);
  }
  if (!isObject(json) || typeOf(json) === null) throw new NotFoundError(`${url} is not an ActivityPub object.`);
  // Served by the object's own server: an open redirect elsewhere must not vouch for it.
  if (originOf(finalUrl) !== originOf(url)) throw new NotFoundError(`${url} was redirected to another server.`);
  if (!sameId(str(json.id), url)) throw new NotFoundError(`${url} answered with a different object (${String(json.id)}).`);
  // Some servers answer an object's URL with its Create; the object inside must live beside it.
  if (typeOf(json) === 'Create' && isObject(json.object)) {
    const inner = json.object;
    const innerId = str(inner.id);
    if (!innerId || originOf(innerId) !== originOf(url)) throw new NotFoundError(`${url} wraps an object from elsewhere.`);
    return inner;
  }
  return json;
}

// Bodies of the IndieWeb endpoints (OAuth, registration, Micropub) and the Mastodon API: read
// under a cap, then decoded by Content-Type — form-encoded, JSON, or multipart where a route takes
// it. OAuth clients differ (interop-notes: form or JSON), so both are accepted where the specs
// allow. Forms are bounded in fields too, counted on the bytes before any parser runs: the
// parsers (URLSearchParams, the Web Request's formData) take no limit, and tiny fields cost far
// more than their bytes (65 MiB of one-byte multipart parts: 6 s on the main thread).
import { readCappedBody } from './http-parts';
import { jsonRefusal, parseBoundedJson } from '../net/bounded-json';

export type DecodedBody =
  | { kind: 'form'; params: URLSearchParams }
  | { kind: 'json'; value: unknown }
  | { kind: 'multipart'; form: FormData }
  | { kind: 'empty' };

export class BodyError extends Error {
  override name = 'BodyError';
  constructor(
    message: string,
    readonly status: 400 | 413 | 415,
  ) {
    super(message);
  }
}

/** Fields a form may have unless the route says otherwise: far more than any client sends to
 * these endpoints, few enough that reading them costs well under a millisecond. */
export const DEFAULT_MAX_FIELDS = 1_000;

export interface BodyAccept {
  /** Whether multipart/form-data is read (else 415). */
  multipart?: boolean;
  /** The most fields (form-encoded) or parts (multipart) the body may have; over it, 400. */
  fields?: number;
}

export async function decodeBody(request: Request, cap: number, accept: BodyAccept = {}): Promise<DecodedBody> {
  const fields = accept.fields ?? DEFAULT_MAX_FIELDS;
  const read = await readCappedBody(request, cap);
  if (!read.ok) throw new BodyError(read.reason === 'too_large' ? `the body is larger than ${cap} bytes` : 'the body was cut off', read.reason === 'too_large' ? 413 : 400);
  if (read.bytes.byteLength === 0) return { kind: 'empty' };
  const type = (request.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  const text = () => new TextDecoder('utf-8', { fatal: true }).decode(read.bytes);
  if (type === 'application/json') {
    let json: string;
    try {
      json = text();
    } catch {
      throw new BodyError('the application/json body is not UTF-8', 400);
    }
    try {
      return { kind: 'json', value: parseBoundedJson(json) };
    } catch (error) {
      throw new BodyError(`the application/json body is ${jsonRefusal(error)}`, 400);
    }
  }
  try {
    if (type === 'application/x-www-form-urlencoded') {
      // Each field ends at an "&": at most one more field than there are.
      if (occurrences(read.bytes, AMPERSAND, fields) >= fields) throw new BodyError(`the form has more than ${fields} fields`, 400);
      return { kind: 'form', params: new URLSearchParams(text()) };
    }
    if (type === 'multipart/form-data' && accept.multipart) {
      const boundary = boundaryOf(request.headers.get('content-type') ?? '');
      // Every part starts with the delimiter, and one more closes the body (RFC 2046 §5.1.1); the
      // delimiter cannot occur inside a part, so counting it bounds the parts.
      if (occurrences(read.bytes, Buffer.from(`--${boundary}`), fields + 1) > fields + 1) throw new BodyError(`the multipart body has more than ${fields} parts`, 400);
      // The parser is given the boundary that was counted, not the client's header as written.
      const copy = new Request('http://body.invalid/', { method: 'POST', headers: { 'content-type': `multipart/form-data; boundary="${boundary}"` }, body: read.bytes as Uint8Array<ArrayBuffer> });
      return { kind: 'multipart', form: await copy.formData() };
    }
  } catch (error) {
    if (error instanceof BodyError) throw error;
    throw new BodyError(`the ${type} body could not be read`, 400);
  }
  throw new BodyError(`unsupported Content-Type ${type || '(none)'}`, 415);
}

const AMPERSAND = Buffer.from('&');

/** How many times `needle` occurs in `bytes`, counting no further than `limit` + 1 (indexOf: a
 * native scan, about a millisecond for tens of megabytes). */
function occurrences(bytes: Uint8Array, needle: Uint8Array, limit: number): number {
  const haystack = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let count = 0;
  for (let at = haystack.indexOf(needle); at !== -1 && count <= limit; at = haystack.indexOf(needle, at + needle.byteLength)) count++;
  return count;
}

/** The one boundary of a multipart Content-Type: 1–70 of RFC 2046's characters, quoted or not. */
function boundaryOf(contentType: string): string {
  const named = [...contentType.matchAll(/;\s*boundary\s*=\s*("[^"]*"|[^;\s]*)/gi)].map((m) => m[1]!.replace(/^"(.*)"$/, '$1'));
  const boundary = named.length === 1 ? named[0]! : '';
  if (!/^[0-9A-Za-z'()+_,\-./:=? ]{0,69}[0-9A-Za-z'()+_,\-./:=?]$/.test(boundary)) throw new BodyError('the multipart Content-Type must name one boundary (RFC 2046: 1 to 70 letters, digits or \'()+_,-./:=?)', 400);
  return boundary;
}

/** OAuth parameters (RFC 6749 §3.1: none may repeat) from a form or a flat JSON object. */
export function oauthParams(body: DecodedBody): Record<string, string> {
  const out: Record<string, string> = {};
  if (body.kind === 'form') {
    for (const [key, value] of body.params) {
      if (Object.hasOwn(out, key)) throw new BodyError(`parameter ${key} is repeated`, 400);
      out[key] = value;
    }
    return out;
  }
  if (body.kind === 'json') {
    if (typeof body.value !== 'object' || body.value === null || Array.isArray(body.value)) throw new BodyError('the JSON body must be an object', 400);
    for (const [key, value] of Object.entries(body.value)) {
      if (typeof value === 'string') out[key] = value;
      else if (typeof value === 'number' || typeof value === 'boolean') out[key] = String(value);
    }
    return out;
  }
  if (body.kind === 'empty') return out;
  throw new BodyError('a form-encoded or JSON body is expected', 415);
}

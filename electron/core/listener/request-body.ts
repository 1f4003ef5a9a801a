// Bodies of the IndieWeb endpoints (OAuth, registration, Micropub) and the Mastodon API: read
// under a cap, then decoded by Content-Type — form-encoded, JSON, or multipart where a route takes
// it. OAuth clients differ (interop-notes: form or JSON), so both are accepted where the specs
// allow. Forms are bounded in fields too, counted on the bytes before any parser runs:
// URLSearchParams takes no limit, and tiny fields cost far more than their bytes (65 MiB of
// one-byte multipart parts: 6 s on the main thread when the Web Request's formData parsed them).
// Multipart bodies are parsed as they arrive (multipart.ts), their parts counted on the way.
import { readCappedBody } from './http-parts';
import { jsonRefusal, parseBoundedJson } from '../net/bounded-json';
import { multipartReader, MultipartError, type FormEntry } from './multipart';

export type DecodedBody =
  | { kind: 'form'; params: URLSearchParams }
  | { kind: 'json'; value: unknown }
  /** The parts in order: fields as text, files as their pieces (multipart.ts). */
  | { kind: 'multipart'; form: FormEntry[] }
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
  const contentType = request.headers.get('content-type') ?? '';
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  if (type === 'multipart/form-data' && accept.multipart === true) return decodeMultipart(request, contentType, cap, fields);
  // Fields are counted as the bytes arrive: a body of too many is refused before it is whole.
  // Each form field ends at an "&" (so at most one more field than there are).
  const counted = type === 'application/x-www-form-urlencoded' ? overCount('&', fields - 1) : undefined;
  const read = await readCappedBody(request, cap, counted);
  if (!read.ok && read.reason === 'stopped') throw new BodyError(`the form has more than ${fields} fields`, 400);
  if (!read.ok) throw tooLargeOrCut(read.reason, cap);
  if (read.bytes.byteLength === 0) return { kind: 'empty' };
  const text = () => new TextDecoder('utf-8', { fatal: true }).decode(read.bytes);
  if (type === 'application/json') {
    let json: string;
    try {
      json = text();
    } catch {
      throw new BodyError('the application/json body is not UTF-8', 400);
    }
    let value: unknown;
    try {
      value = parseBoundedJson(json);
    } catch (error) {
      throw new BodyError(`the application/json body is ${jsonRefusal(error)}`, 400);
    }
    // A \ud800 escape alone is valid JSON but no text: stored as a name or a post, it would go
    // out to other servers as a string their parsers refuse. Only a body that has such an escape
    // is looked through.
    if (LONE_SURROGATE_ESCAPE.test(json) && !wellFormed(value)) throw new BodyError('the application/json body has a string that is not Unicode text (a lone surrogate escape)', 400);
    return { kind: 'json', value };
  }
  try {
    if (type === 'application/x-www-form-urlencoded') return { kind: 'form', params: new URLSearchParams(text()) };
  } catch {
    throw new BodyError(`the ${type} body could not be read`, 400);
  }
  throw new BodyError(`unsupported Content-Type ${type || '(none)'}`, 415);
}

/** A \uD800–\uDFFF escape: half of a surrogate pair, well-formed only when paired. */
const LONE_SURROGATE_ESCAPE = /\\u[dD][89a-fA-F][0-9a-fA-F]{2}/;

/** A surrogate code unit without its other half. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Whether every string (and key) in a parsed JSON value is well-formed Unicode. */
function wellFormed(value: unknown): boolean {
  if (typeof value === 'string') return !LONE_SURROGATE.test(value);
  if (Array.isArray(value)) return value.every(wellFormed);
  if (value !== null && typeof value === 'object') return Object.entries(value).every(([key, v]) => !LONE_SURROGATE.test(key) && wellFormed(v));
  return true;
}

const tooLargeOrCut = (reason: 'too_large' | 'aborted' | 'stopped', cap: number) =>
  reason === 'too_large' ? new BodyError(`the body is larger than ${cap} bytes`, 413) : new BodyError('the body was cut off', 400);

/** The text of a multipart body's fields, all together: a post's text and its properties, as a
 * form-encoded body may carry (the Micropub listener's 1 MiB). */
export const MULTIPART_FIELD_BYTES = 1024 * 1024;

/** A multipart body parsed chunk by chunk as it arrives (multipart.ts), its parts counted and
 * its fields bounded on the way. */
async function decodeMultipart(request: Request, contentType: string, cap: number, parts: number): Promise<DecodedBody> {
  const boundary = boundaryOf(contentType);
  if (boundary === null) {
    await request.body?.cancel().catch(() => undefined);
    throw new BodyError(BOUNDARY_REFUSAL, 400);
  }
  const reader = multipartReader(boundary, { parts, fieldBytes: MULTIPART_FIELD_BYTES });
  let refusal: MultipartError | null = null;
  const read = await readCappedBody(
    request,
    cap,
    (chunk) => {
      try {
        reader.push(chunk);
        return false;
      } catch (error) {
        if (!(error instanceof MultipartError)) throw error;
        refusal = error;
        return true;
      }
    },
    false,
  );
  if (!read.ok && read.reason === 'stopped') throw new BodyError(refusal!.message, refusal!.status);
  if (!read.ok) throw tooLargeOrCut(read.reason, cap);
  if (read.size === 0) return { kind: 'empty' };
  try {
    return { kind: 'multipart', form: reader.end() };
  } catch (error) {
    if (error instanceof MultipartError) throw new BodyError(error.message, error.status);
    throw error;
  }
}

/**
 * A chunk watcher for readCappedBody: true once `needle` has occurred more than `most` times in
 * the bytes so far, a match straddling two chunks included (indexOf: a native scan, a few
 * milliseconds for 65 MiB).
 */
function overCount(needle: string, most: number): (chunk: Uint8Array) => boolean {
  const wanted = Buffer.from(needle);
  const keep = wanted.length - 1;
  // The last bytes seen, too few to hold a match: one may begin there and end in the next chunk.
  let tail = Buffer.alloc(0);
  let count = 0;
  return (chunk) => {
    const bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    if (tail.length > 0) {
      const across = Buffer.concat([tail, bytes.subarray(0, keep)]);
      for (let at = across.indexOf(wanted); at !== -1 && at < tail.length; at = across.indexOf(wanted, at + 1)) count++;
    }
    for (let at = bytes.indexOf(wanted); at !== -1 && count <= most; at = bytes.indexOf(wanted, at + wanted.length)) count++;
    if (keep > 0) tail = Buffer.from(bytes.length >= keep ? bytes.subarray(bytes.length - keep) : Buffer.concat([tail, bytes]).subarray(-keep));
    return count > most;
  };
}

const BOUNDARY_REFUSAL = "the multipart Content-Type must name one boundary (RFC 2046: 1 to 70 letters, digits or '()+_,-./:=?)";

/** The one boundary of a multipart Content-Type — 1–70 of RFC 2046's characters, quoted or not
 * — or null. */
function boundaryOf(contentType: string): string | null {
  const named = [...contentType.matchAll(/;\s*boundary\s*=\s*("[^"]*"|[^;\s]*)/gi)].map((m) => m[1]!.replace(/^"(.*)"$/, '$1'));
  const boundary = named.length === 1 ? named[0]! : '';
  return /^[0-9A-Za-z'()+_,\-./:=? ]{0,69}[0-9A-Za-z'()+_,\-./:=?]$/.test(boundary) ? boundary : null;
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

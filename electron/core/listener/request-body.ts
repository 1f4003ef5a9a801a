// Bodies of the IndieWeb endpoints (OAuth, registration, Micropub): read under a cap, then
// decoded by Content-Type — form-encoded, JSON, or multipart (Micropub only). OAuth clients
// differ (interop-notes: form or JSON), so both are accepted where the specs allow.
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

export async function decodeBody(request: Request, cap: number, accept: { multipart?: boolean } = {}): Promise<DecodedBody> {
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
    if (type === 'application/x-www-form-urlencoded') return { kind: 'form', params: new URLSearchParams(text()) };
    if (type === 'multipart/form-data' && accept.multipart) {
      const copy = new Request('http://body.invalid/', { method: 'POST', headers: { 'content-type': request.headers.get('content-type') ?? '' }, body: read.bytes as Uint8Array<ArrayBuffer> });
      return { kind: 'multipart', form: await copy.formData() };
    }
  } catch {
    throw new BodyError(`the ${type} body could not be read`, 400);
  }
  throw new BodyError(`unsupported Content-Type ${type || '(none)'}`, 415);
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

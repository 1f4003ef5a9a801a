// Checks made on an inbound signed request before Fedify verifies the signature itself: which
// spec it uses, whether its dates are inside the window (past *and* future: microblog.pub never
// checked the future, a replay hole) and whether the body matches its Digest / Content-Digest.
// Fedify checks most of this too, but answers only "invalid"; these give the listener and the
// logs a reason, and add what Fedify leaves open: an RFC 9421 signature on a request with a
// body must cover content-digest, or the body could be swapped under a valid signature; and
// every signature must cover the host it was sent to, or it could be replayed to another server,
// and the query string when there is one.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { HttpMessageSignaturesSpec } from '@fedify/fedify';

export type PrecheckFailure = 'unsigned' | 'bad_signature' | 'expired' | 'digest_mismatch' | 'digest_list' | 'query_not_covered';
export type PrecheckResult = { ok: true; spec: HttpMessageSignaturesSpec } | { ok: false; reason: PrecheckFailure };

interface SignatureInputMember {
  label: string;
  components: string[];
  params: Map<string, string>;
}

/** Splits on `separator` outside double quotes and parentheses (RFC 8941 lists/dictionaries).
 * Scans indexes and slices (no string built a character at a time: a signature is ~350 chars). */
function splitTopLevel(text: string, separator: string): string[] {
  const parts: string[] = [];
  let start = 0;
  let depth = 0;
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '\\') i++;
      else if (c === '"') quoted = false;
    } else if (c === '"') quoted = true;
    else if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === separator && depth === 0) {
      parts.push(text.slice(start, i).trim());
      start = i + 1;
    }
  }
  parts.push(text.slice(start).trim());
  return parts.filter((p) => p !== '');
}

function parseParams(parts: string[]): Map<string, string> {
  const params = new Map<string, string>();
  for (const part of parts) {
    const eq = part.indexOf('=');
    const name = (eq < 0 ? part : part.slice(0, eq)).trim().toLowerCase();
    const value = eq < 0 ? '' : part.slice(eq + 1).trim().replace(/^"(.*)"$/, '$1');
    params.set(name, value);
  }
  return params;
}

export function parseSignatureInput(header: string): SignatureInputMember[] {
  const members: SignatureInputMember[] = [];
  for (const member of splitTopLevel(header, ',')) {
    const label = /^([a-z*][a-z0-9_.*-]*)=\(/.exec(member)?.[1];
    if (label === undefined) continue;
    // The inner list ends at the first ')' outside a quoted string.
    let end = label.length + 2;
    for (let quoted = false; end < member.length; end++) {
      const c = member[end];
      if (quoted && c === '\\') end++;
      else if (c === '"') quoted = !quoted;
      else if (c === ')' && !quoted) break;
    }
    const inner = member.slice(label.length + 2, end);
    const components = [...inner.matchAll(/(?:^|\s)"([^"]*)"/g)].map((m) => (m[1] ?? '').toLowerCase());
    members.push({ label, components, params: parseParams(splitTopLevel(member.slice(end + 1), ';')) });
  }
  return members;
}

/** draft-cavage `Signature: keyId="…",headers="…",created=123,…` */
export function parseCavageSignature(header: string): Map<string, string> {
  return parseParams(splitTopLevel(header, ','));
}

const HASHES: Record<string, string> = { sha: 'sha1', 'sha-256': 'sha256', 'sha-512': 'sha512' };

/**
 * The most entries a Digest / Content-Digest may list. Senders list one (Mastodon, Fedify,
 * GoToSocial: sha-256) or two; every entry of a supported algorithm costs a pass over the body
 * here and another in Fedify, so `SHA-256=<the right one>` ×200 on a 1 MiB body took 441–541 ms
 * a request on loopback, 34–40 ms once refused here (measured).
 */
export const MAX_DIGEST_ENTRIES = 4;

/** 'match' if every supported digest matches, 'mismatch' if one does not, 'none' if none usable.
 * Each algorithm appears once (digestEntries refused a repeat), so the body is hashed at most
 * once per algorithm. */
function checkDigests(entries: Array<[string, string]>, body: Uint8Array, allowed: readonly string[]): 'match' | 'mismatch' | 'none' {
  let matched = false;
  for (const [algorithm, encoded] of entries) {
    const hash = allowed.includes(algorithm) ? HASHES[algorithm] : undefined;
    if (hash === undefined) continue;
    const claimed = Buffer.from(encoded, 'base64');
    const actual = createHash(hash).update(body).digest();
    if (claimed.length !== actual.length || !timingSafeEqual(claimed, actual)) return 'mismatch';
    matched = true;
  }
  return matched ? 'match' : 'none';
}

/**
 * The entries of a Digest / Content-Digest, or null when there are more than MAX_DIGEST_ENTRIES
 * or one algorithm is given twice (a second digest of the same body says nothing new). Split on
 * every comma, as Fedify splits it: split around quotes like a structured field, a list hidden
 * in a quoted "value" would look like one entry here and be hashed entry by entry there.
 */
function digestEntries(header: string, rfc9421: boolean): Array<[string, string]> | null {
  const parts = header.split(',');
  if (parts.length > MAX_DIGEST_ENTRIES) return null;
  const entries: Array<[string, string]> = [];
  const seen = new Set<string>();
  for (const part of parts) {
    const eq = part.indexOf('=');
    const algorithm = (eq < 0 ? part : part.slice(0, eq)).trim().toLowerCase();
    const value = eq < 0 ? '' : part.slice(eq + 1).trim();
    if (algorithm === '') continue;
    if (seen.has(algorithm)) return null;
    seen.add(algorithm);
    entries.push([algorithm, rfc9421 ? value.replace(/^:(.*):$/, '$1') : value]);
  }
  return entries;
}

/**
 * The signature must name the server it was meant for; otherwise a server that received a
 * signed delivery could replay it to our inbox (same path) within the window. Fedify requires
 * (request-target) and date for draft-cavage, but neither host nor an authority for RFC 9421.
 */
function coversHost(spec: HttpMessageSignaturesSpec, members: SignatureInputMember[], cavage: Map<string, string> | undefined): boolean {
  if (spec === 'rfc9421') {
    return members.every((m) => ['@target-uri', '@authority', 'host'].some((c) => m.components.includes(c)));
  }
  return (cavage?.get('headers') ?? '').toLowerCase().split(/\s+/).includes('host');
}

/**
 * A query string the signature does not cover could be added to a signed request at will
 * (`POST /inbox?x=1` under a signature over `post /inbox`). Fedify builds draft-cavage's
 * (request-target) from the path alone, so a cavage signature never covers a query: a signed
 * request with one is refused. An RFC 9421 signature must cover @query, @target-uri or
 * @request-target, each of which includes it.
 */
function coversQuery(request: Request, spec: HttpMessageSignaturesSpec, members: SignatureInputMember[]): boolean {
  const q = request.url.indexOf('?');
  if (q < 0 || q === request.url.length - 1) return true;
  if (spec !== 'rfc9421') return false;
  return members.every((m) => ['@query', '@target-uri', '@request-target'].some((c) => m.components.includes(c)));
}

/** `body`, when given, must be the request's body bytes (read once by the caller). */
export async function precheckSignedRequest(request: Request, nowMs: number, windowMs: number, body?: Uint8Array): Promise<PrecheckResult> {
  const signature = request.headers.get('signature');
  const signatureInput = request.headers.get('signature-input');
  if (signature === null) return { ok: false, reason: 'unsigned' };
  const spec: HttpMessageSignaturesSpec = signatureInput === null ? 'draft-cavage-http-signatures-12' : 'rfc9421';
  const outside = (ms: number) => Math.abs(ms - nowMs) > windowMs;

  const date = request.headers.get('date');
  if (date !== null) {
    const ms = Date.parse(date);
    if (Number.isNaN(ms)) return { ok: false, reason: 'bad_signature' };
    if (outside(ms)) return { ok: false, reason: 'expired' };
  }
  const members = signatureInput === null ? [] : parseSignatureInput(signatureInput);
  const paramSets = signatureInput === null ? [parseCavageSignature(signature)] : members.map((m) => m.params);
  if (signatureInput === null && date === null) return { ok: false, reason: 'bad_signature' };
  if (signatureInput !== null && members.length === 0) return { ok: false, reason: 'bad_signature' };
  if (!coversHost(spec, members, paramSets[0])) return { ok: false, reason: 'bad_signature' };
  if (!coversQuery(request, spec, members)) return { ok: false, reason: 'query_not_covered' };
  for (const params of paramSets) {
    const created = params.get('created');
    const expires = params.get('expires');
    if (created !== undefined && created !== '' && outside(Number(created) * 1000)) return { ok: false, reason: 'expired' };
    if (expires !== undefined && expires !== '' && Number(expires) * 1000 < nowMs) return { ok: false, reason: 'expired' };
  }

  if (request.method === 'GET' || request.method === 'HEAD') return { ok: true, spec };
  const bytes = body ?? new Uint8Array(await request.clone().arrayBuffer());
  const header = request.headers.get(spec === 'rfc9421' ? 'content-digest' : 'digest');
  if (header === null) return { ok: false, reason: 'bad_signature' };
  if (spec === 'rfc9421' && !members.every((m) => m.components.includes('content-digest'))) {
    return { ok: false, reason: 'bad_signature' };
  }
  const allowed = spec === 'rfc9421' ? ['sha-256', 'sha-512'] : ['sha', 'sha-256', 'sha-512'];
  const entries = digestEntries(header, spec === 'rfc9421');
  if (entries === null) return { ok: false, reason: 'digest_list' };
  const outcome = checkDigests(entries, bytes, allowed);
  if (outcome === 'mismatch') return { ok: false, reason: 'digest_mismatch' };
  if (outcome === 'none') return { ok: false, reason: 'bad_signature' };
  return { ok: true, spec };
}

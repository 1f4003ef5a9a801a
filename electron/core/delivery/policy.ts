// The delivery policy (reference §5.4, kept and made readable): what an HTTP status or a network
// error means for a queued row — sent, try again later (when), or give up (why, in a sentence
// a person understands). Pure functions; the loop applies the verdict to the row.
import { BlockedAddressError, BodyTooLargeError, NetError, RequestTimeoutError, TooManyRedirectsError, UnsupportedSchemeError } from '../net/errors';

/** 16 tries like the reference: waits of 2, 4, … 32 768 s (≈ 18 h in all, jittered). Time spent
 * offline does not count: the loop attempts nothing then. */
export const MAX_TRIES = 16;
/** A Retry-After longer than this is capped (a server cannot park a row for a week). */
export const MAX_RETRY_AFTER_MS = 24 * 60 * 60 * 1000;

export type Verdict =
  | { kind: 'sent' }
  | { kind: 'retry'; at: Date; reason: string }
  | { kind: 'give-up'; reason: string };

/** Wait after the n-th failed try (n ≥ 1): 2^n s, ±25 % jitter so rows queued together (a
 * post to many servers, a burst after coming online) do not come back in lock-step. */
export function backoffMs(tries: number, random: () => number = Math.random): number {
  const base = 2 ** Math.min(Math.max(tries, 1), 20) * 1000;
  return Math.round(base * (0.75 + 0.5 * random()));
}

/** Retry-After as seconds or an HTTP date → the time to try again (null when unusable). */
export function parseRetryAfter(value: string | null, now: Date): Date | null {
  if (value === null) return null;
  const text = value.trim();
  let ms: number;
  if (/^\d+$/.test(text)) ms = Number(text) * 1000;
  else {
    const at = Date.parse(text);
    if (Number.isNaN(at)) return null;
    ms = at - now.getTime();
  }
  return new Date(now.getTime() + Math.min(Math.max(ms, 1000), MAX_RETRY_AFTER_MS));
}

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 405: 'Method Not Allowed',
  408: 'Request Timeout', 410: 'Gone', 413: 'Payload Too Large', 422: 'Unprocessable Entity', 429: 'Too Many Requests',
  500: 'Internal Server Error', 502: 'Bad Gateway', 503: 'Service Unavailable', 504: 'Gateway Timeout',
};
const statusText = (status: number) => `HTTP ${status}${STATUS_TEXT[status] ? ` ${STATUS_TEXT[status]}` : ''}`;

/** The verdict on an HTTP answer. */
export function judgeResponse(input: { status: number; retryAfter: string | null; host: string; tries: number; now: Date; random?: () => number }): Verdict {
  const { status, host, now } = input;
  const later = (reason: string, at?: Date | null): Verdict => ({
    kind: 'retry',
    reason,
    at: at ?? new Date(now.getTime() + backoffMs(input.tries, input.random)),
  });
  if (status >= 200 && status < 300) return { kind: 'sent' };
  if (status === 429 || status === 503) {
    const at = parseRetryAfter(input.retryAfter, now);
    return later(`${host} asked Tern to wait (${statusText(status)})${at ? ' and said until when' : ''}.`, at);
  }
  // The remote may still be fetching our key (reference: 401 is retried).
  if (status === 401) return later(`${host} could not verify Tern's signature yet (${statusText(status)}).`);
  if (status === 408) return later(`${host} timed out reading the delivery (${statusText(status)}).`);
  if (status >= 500) return later(`${host} had a server error (${statusText(status)}).`);
  if (status === 410) return { kind: 'give-up', reason: `${host} says this inbox is gone (${statusText(status)}); Tern stopped trying.` };
  if (status >= 400) return { kind: 'give-up', reason: `${host} refused the delivery (${statusText(status)}); Tern stopped trying.` };
  // 1xx/3xx left over (a redirect without Location): nothing sensible to retry.
  return { kind: 'give-up', reason: `${host} answered with an unexpected ${statusText(status)}; Tern stopped trying.` };
}

/** The verdict on a failure before any HTTP answer. */
export function judgeError(input: { error: unknown; host: string; tries: number; now: Date; random?: () => number }): Verdict {
  const { error, host, now } = input;
  const later = (reason: string): Verdict => ({ kind: 'retry', reason, at: new Date(now.getTime() + backoffMs(input.tries, input.random)) });
  // A private or non-http address will not become a public server by waiting.
  if (error instanceof BlockedAddressError || error instanceof UnsupportedSchemeError) {
    return { kind: 'give-up', reason: `Tern will not deliver to ${host}: ${error.message}.` };
  }
  if (error instanceof TooManyRedirectsError || error instanceof BodyTooLargeError) {
    return { kind: 'give-up', reason: `${host} answered in a way Tern cannot use (${error.message}).` };
  }
  if (error instanceof RequestTimeoutError || (error instanceof Error && error.name === 'TimeoutError')) {
    return later(`${host} did not answer in time.`);
  }
  const code = errorCode(error);
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return later(`Could not find the server ${host} (DNS ${code}).`);
  if (code === 'ECONNREFUSED') return later(`${host} refused the connection (nothing listening).`);
  if (code) return later(`Could not reach ${host} (${code}).`);
  if (error instanceof NetError) return later(`Could not reach ${host}: ${error.message}.`);
  return later(`Could not deliver to ${host}: ${error instanceof Error ? error.message : String(error)}.`);
}

/** Errors that say this machine, not the remote, is cut off (worth a connectivity re-check). */
export function looksLikeLocalNetworkDown(error: unknown): boolean {
  const code = errorCode(error);
  return code === 'ENETUNREACH' || code === 'ENETDOWN' || code === 'EAI_AGAIN';
}

function errorCode(error: unknown): string | null {
  for (let e: unknown = error, depth = 0; e && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && /^E[A-Z_]+$/.test(code)) return code;
  }
  return null;
}

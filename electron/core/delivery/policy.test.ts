import { describe, expect, it } from 'vitest';
import { BlockedAddressError, RequestTimeoutError } from '../net/errors';
import { MAX_TRIES, backoffMs, judgeError, judgeResponse, parseRetryAfter } from './policy';

const now = new Date('2030-01-01T00:00:00Z');

describe('delivery policy', () => {
  it('backs off 2^n seconds with ±25 % jitter, ~18 h over 16 tries like the reference', () => {
    expect([1, 2, 3, 10].map((n) => backoffMs(n, () => 0.5))).toEqual([2_000, 4_000, 8_000, 1_024_000]);
    expect(backoffMs(3, () => 0)).toBe(6_000);
    expect(backoffMs(3, () => 1)).toBe(10_000);
    const total = Array.from({ length: MAX_TRIES - 1 }, (_, i) => backoffMs(i + 1, () => 0.5)).reduce((a, b) => a + b, 0);
    expect(total / 3_600_000).toBeCloseTo(18.2, 1);
  });

  it('reads Retry-After as seconds or an HTTP date, bounded to [1 s, 24 h]', () => {
    expect(parseRetryAfter('30', now)?.getTime()).toBe(now.getTime() + 30_000);
    expect(parseRetryAfter('Tue, 01 Jan 2030 00:02:00 GMT', now)?.getTime()).toBe(now.getTime() + 120_000);
    expect(parseRetryAfter('0', now)?.getTime()).toBe(now.getTime() + 1_000);
    expect(parseRetryAfter('9999999', now)?.getTime()).toBe(now.getTime() + 86_400_000);
    expect(parseRetryAfter('soon', now)).toBeNull();
    expect(parseRetryAfter(null, now)).toBeNull();
  });

  it.each([
    [200, 'sent'],
    [202, 'sent'],
    [401, 'retry'],
    [408, 'retry'],
    [429, 'retry'],
    [500, 'retry'],
    [503, 'retry'],
    [400, 'give-up'],
    [403, 'give-up'],
    [404, 'give-up'],
    [410, 'give-up'],
    [422, 'give-up'],
  ])('HTTP %i → %s', (status, kind) => {
    expect(judgeResponse({ status, retryAfter: null, host: 'example.com', tries: 1, now }).kind).toBe(kind);
  });

  it('gives up on addresses it will never connect to, retries timeouts and network errors', () => {
    expect(judgeError({ error: new BlockedAddressError('http://10.0.0.1/', '10.0.0.1'), host: '10.0.0.1', tries: 1, now }).kind).toBe('give-up');
    const timeout = judgeError({ error: new RequestTimeoutError('http://x/', 'overall', 10), host: 'x', tries: 1, now });
    expect(timeout).toMatchObject({ kind: 'retry', reason: 'x did not answer in time.' });
    const dns = judgeError({ error: Object.assign(new Error('getaddrinfo'), { code: 'ENOTFOUND' }), host: 'nowhere.example', tries: 1, now });
    expect(dns).toMatchObject({ kind: 'retry', reason: expect.stringMatching(/Could not find the server nowhere.example/) });
  });
});

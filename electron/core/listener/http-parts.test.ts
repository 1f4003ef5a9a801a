// The listener's HTTP pieces on their own: content negotiation, the public URL a signature is
// checked against, the body cap, and the block list's host matching.
import { describe, expect, it } from 'vitest';
import { isBlockedUrl } from '../federation/blocked-servers';
import { isLocalResource } from '../federation/webfinger';
import { localActor } from '../federation/identity';
import { publicUrl, readCappedBody, wantsActivityJson } from './http-parts';

describe('wantsActivityJson', () => {
  it.each([
    ['application/activity+json', true],
    ['application/ld+json; profile="https://www.w3.org/ns/activitystreams"', true],
    ['text/html, application/activity+json', true],
    ['text/html;q=0.9, application/ld+json;q=0.8', true],
    ['application/activity+json;q=0, text/html', false],
    ['text/html,application/xhtml+xml,*/*;q=0.8', false],
    ['application/json', false],
    ['', false],
  ])('%s → %s', (accept, expected) => {
    expect(wantsActivityJson(accept)).toBe(expected);
  });
});

describe('publicUrl', () => {
  const request = (headers: Record<string, string>) => new Request('http://127.0.0.1:4861/inbox?x=1', { headers });
  const forwarded = { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'me.example', host: '127.0.0.1:4861' };

  it('is the base URL plus the path, whatever forwarded headers say (no replay of a delivery signed for another host)', () => {
    expect(publicUrl(request(forwarded), 'https://tern.example').href).toBe('https://tern.example/inbox?x=1');
    const many = { ...forwarded, 'x-forwarded-proto': 'http, https', 'x-forwarded-host': 'evil.example, inner', host: 'evil.example' };
    expect(publicUrl(request(many), 'https://tern.example/').href).toBe('https://tern.example/inbox?x=1');
  });
});

describe('readCappedBody', () => {
  it('reads a body up to the cap and refuses one byte more', async () => {
    const at = await readCappedBody(new Request('http://x/', { method: 'POST', body: 'x'.repeat(10) }), 10);
    expect(at).toMatchObject({ ok: true });
    const over = await readCappedBody(new Request('http://x/', { method: 'POST', body: 'x'.repeat(11) }), 10);
    expect(over).toEqual({ ok: false, reason: 'too_large' });
  });

  it('refuses by Content-Length before reading', async () => {
    const request = new Request('http://x/', { method: 'POST', body: 'tiny', headers: { 'content-length': '999999' } });
    expect(await readCappedBody(request, 10)).toEqual({ ok: false, reason: 'too_large' });
  });

  it('leaves a body to its watcher unless kept: no array of its size (a 40 MiB multipart upload allocated 40 MiB of zeros)', async () => {
    const seen: number[] = [];
    const read = await readCappedBody(new Request('http://x/', { method: 'POST', body: 'x'.repeat(1000) }), 2000, (chunk) => (seen.push(chunk.byteLength), false), false);
    expect(read).toEqual({ ok: true, bytes: new Uint8Array(0), size: 1000 });
    expect(seen.reduce((a, b) => a + b, 0)).toBe(1000);
  });
});

describe('isBlockedUrl', () => {
  const blocked = ['Bad.example', 'https://spam.example/', '*.wild.example', '127.0.0.1:9999'];
  it.each([
    ['https://bad.example/users/a', true],
    ['https://sub.bad.example/users/a', true],
    ['https://notbad.example/users/a', false],
    ['https://spam.example/x', true],
    ['https://a.wild.example/x', true],
    ['http://127.0.0.1:9999/users/a', true],
    ['http://127.0.0.1:9998/users/a', false],
    ['not a url', false],
  ])('%s → %s', (url, expected) => {
    expect(isBlockedUrl(url, blocked)).toBe(expected);
  });
});

describe('isLocalResource (WebFinger)', () => {
  const local = localActor('https://tern.example', 'alice');
  it.each([
    ['acct:alice@tern.example', true],
    ['acct:Alice@TERN.example', true],
    ['alice@tern.example', true],
    ['https://tern.example', true],
    ['https://tern.example/', true],
    ['acct:bob@tern.example', false],
    ['acct:alice@other.example', false],
    ['https://tern.example/o/123', false],
  ])('%s → %s', (resource, expected) => {
    expect(isLocalResource(resource, local)).toBe(expected);
  });
});

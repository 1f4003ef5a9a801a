import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { MAX_DIGEST_ENTRIES, parseCavageSignature, parseSignatureInput, precheckSignedRequest } from './signature-precheck';

describe('signature header parsing', () => {
  it('draft-cavage: parameters split on commas outside quotes, quotes removed, names lower-cased', () => {
    const params = parseCavageSignature(
      'keyId="https://a.example/users/x#main-key",algorithm="rsa-sha256", headers="(request-target) host date digest",signature="ab,c\\"d=="',
    );
    expect([...params.entries()]).toEqual([
      ['keyid', 'https://a.example/users/x#main-key'],
      ['algorithm', 'rsa-sha256'],
      ['headers', '(request-target) host date digest'],
      ['signature', 'ab,c\\"d=='],
    ]);
  });

  it('RFC 9421: each member with its components and parameters, commas and semicolons inside quotes kept', () => {
    const members = parseSignatureInput(
      'sig1=("@method" "@target-uri" "content-digest");created=1700000000;keyid="https://a.example/k;1,2";alg="rsa-v1_5-sha256", ' +
        'sig2=("@authority");created=1700000001',
    );
    expect(members.map((m) => ({ label: m.label, components: m.components, params: Object.fromEntries(m.params) }))).toEqual([
      {
        label: 'sig1',
        components: ['@method', '@target-uri', 'content-digest'],
        params: { created: '1700000000', keyid: 'https://a.example/k;1,2', alg: 'rsa-v1_5-sha256' },
      },
      { label: 'sig2', components: ['@authority'], params: { created: '1700000001' } },
    ]);
  });
});

describe('the query string must be covered', () => {
  const now = Date.parse('2024-05-01T12:00:00Z');
  const created = Math.floor(now / 1000);
  const cavage = (url: string) =>
    new Request(url, {
      headers: {
        date: new Date(now).toUTCString(),
        signature: 'keyId="https://a.example/k",algorithm="rsa-sha256",headers="(request-target) host date",signature="AA=="',
      },
    });
  const rfc9421 = (url: string, components: string) =>
    new Request(url, {
      headers: { 'signature-input': `sig1=(${components});created=${created};keyid="https://a.example/k"`, signature: 'sig1=:AA==:' },
    });
  const check = (request: Request) => precheckSignedRequest(request, now, 3_600_000);

  it('draft-cavage: Fedify signs the path alone, so a request with a query is refused', async () => {
    expect(await check(cavage('https://me.example/o/1?x=1'))).toEqual({ ok: false, reason: 'query_not_covered' });
    expect(await check(cavage('https://me.example/o/1'))).toEqual({ ok: true, spec: 'draft-cavage-http-signatures-12' });
  });

  it('RFC 9421: @path without @query is refused when there is a query; @query, @target-uri or @request-target cover it', async () => {
    expect(await check(rfc9421('https://me.example/o/1?x=1', '"@method" "@path" "@authority"'))).toEqual({ ok: false, reason: 'query_not_covered' });
    for (const covering of ['"@path" "@query" "@authority"', '"@target-uri"', '"@request-target" "host"']) {
      expect(await check(rfc9421('https://me.example/o/1?x=1', covering))).toEqual({ ok: true, spec: 'rfc9421' });
    }
    expect(await check(rfc9421('https://me.example/o/1', '"@method" "@path" "@authority"'))).toEqual({ ok: true, spec: 'rfc9421' });
  });
});

describe('a digest list is refused when long or repeating an algorithm', () => {
  const now = Date.parse('2024-05-01T12:00:00Z');
  const created = Math.floor(now / 1000);
  const body = new TextEncoder().encode('{"type":"Follow"}');
  const sha256 = createHash('sha256').update(body).digest('base64');
  const sha512 = createHash('sha512').update(body).digest('base64');
  const cavage = (digest: string) =>
    new Request('https://me.example/inbox', {
      method: 'POST',
      body,
      headers: {
        date: new Date(now).toUTCString(),
        digest,
        signature: 'keyId="https://a.example/k",algorithm="rsa-sha256",headers="(request-target) host date digest",signature="AA=="',
      },
    });
  const rfc9421 = (contentDigest: string) =>
    new Request('https://me.example/inbox', {
      method: 'POST',
      body,
      headers: {
        'content-digest': contentDigest,
        'signature-input': `sig1=("@method" "@target-uri" "content-digest");created=${created};keyid="https://a.example/k"`,
        signature: 'sig1=:AA==:',
      },
    });
  const check = (request: Request) => precheckSignedRequest(request, now, 3_600_000, body);
  const refused = { ok: false, reason: 'digest_list' };

  it('draft-cavage: the right SHA-256 200 times, or SHA-256 twice in two spellings, is refused', async () => {
    expect(await check(cavage(Array(200).fill(`SHA-256=${sha256}`).join(',')))).toEqual(refused);
    expect(await check(cavage(Array(140).fill(`SHA-512=${sha512}`).join(',')))).toEqual(refused);
    expect(await check(cavage(`SHA-256=${sha256},sha-256=${sha256}`))).toEqual(refused);
    expect(await check(cavage(`${'X=abc,'.repeat(MAX_DIGEST_ENTRIES)}SHA-256=${sha256}`))).toEqual(refused);
  });

  it('RFC 9421: the right sha-256 200 times, or sha-512 140 times, is refused', async () => {
    expect(await check(rfc9421(Array(200).fill(`sha-256=:${sha256}:`).join(',')))).toEqual(refused);
    expect(await check(rfc9421(Array(140).fill(`sha-512=:${sha512}:`).join(', ')))).toEqual(refused);
  });

  it('a list hidden in a quoted value counts by its commas, as Fedify splits it', async () => {
    const hidden = `SHA-256=${sha256},x="${Array(200).fill(`SHA-256=${sha256}`).join(',')}"`;
    expect(await check(cavage(hidden))).toEqual(refused);
  });

  it('one digest per algorithm, up to the limit, is taken', async () => {
    expect(await check(cavage(`SHA-256=${sha256}`))).toEqual({ ok: true, spec: 'draft-cavage-http-signatures-12' });
    expect(await check(cavage(`SHA-256=${sha256}, SHA-512=${sha512}, MD5=abc`))).toEqual({ ok: true, spec: 'draft-cavage-http-signatures-12' });
    expect(await check(rfc9421(`sha-256=:${sha256}:, sha-512=:${sha512}:`))).toEqual({ ok: true, spec: 'rfc9421' });
  });
});

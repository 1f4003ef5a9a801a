// The inert tracer handed to Fedify: every form of startActiveSpan calls the function once, with
// a span that records nothing, and returns what it returns (a signature made through it verifies:
// signatures.test.ts signs and verifies through signedFetch and verifyInbound, which use it).
import { signRequest, verifyRequest } from '@fedify/fedify';
import { describe, expect, it } from 'vitest';
import { noTracing } from './no-tracing';

describe('noTracing', () => {
  it('calls the traced function with an inert span, whatever the overload', async () => {
    const tracer = noTracing.getTracer('fedify', '2.3.6');
    const seen: boolean[] = [];
    const fn = (span: { isRecording(): boolean; setAttribute(k: string, v: string): unknown; end(): void }) => {
      seen.push(span.isRecording());
      expect(span.setAttribute('a', 'b')).toBe(span);
      span.end();
      return 42;
    };
    expect(tracer.startActiveSpan('a', fn)).toBe(42);
    expect(tracer.startActiveSpan('b', {}, fn)).toBe(42);
    expect(tracer.startActiveSpan('c', {}, undefined as never, fn)).toBe(42);
    expect(await tracer.startActiveSpan('d', async () => 'async')).toBe('async');
    expect(seen).toEqual([false, false, false]);
    expect(tracer.startSpan('e').spanContext().traceFlags).toBe(0);
  });

  it('lets Fedify sign a request that Fedify then verifies', async () => {
    const pair = (await crypto.subtle.generateKey(
      { name: 'RSASSA-PKCS1-v1_5', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' },
      true,
      ['sign', 'verify'],
    )) as CryptoKeyPair;
    const body = new TextEncoder().encode('{"type":"Like"}').buffer;
    const keyId = new URL('https://tern.example/#main-key');
    const request = new Request('https://peer.example/inbox', { method: 'POST', headers: { 'content-type': 'application/activity+json' }, body });
    for (const spec of ['rfc9421', 'draft-cavage-http-signatures-12'] as const) {
      const signed = await signRequest(request.clone(), pair.privateKey, keyId, { spec, body, tracerProvider: noTracing });
      const { CryptographicKey } = await import('@fedify/vocab');
      const key = new CryptographicKey({ id: keyId, owner: new URL('https://tern.example/'), publicKey: pair.publicKey });
      const verified = await verifyRequest(signed, {
        spec,
        tracerProvider: noTracing,
        documentLoader: async (url) => {
          if (url !== keyId.href) throw new Error(`unexpected fetch of ${url}`);
          return { contextUrl: null, documentUrl: url, document: await key.toJsonLd({ format: 'compact' }) };
        },
      });
      expect(verified?.id?.href, spec).toBe(keyId.href);
    }
  });
});

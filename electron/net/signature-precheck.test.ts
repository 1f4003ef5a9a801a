import { describe, expect, it } from 'vitest';
import { parseCavageSignature, parseSignatureInput } from './signature-precheck';

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

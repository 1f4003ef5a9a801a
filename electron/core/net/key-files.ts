// The author's own key pairs, kept as files in a folder only the user can read (mode 0600; the
// folder 0700): RSA-2048 for HTTP signatures (what Mastodon and the rest verify) and Ed25519 for
// Object Integrity Proofs. Key material is never logged or put in error messages. Under
// Electron the shell may wrap these with safeStorage; this module is the plain-Node part.
//
// Fedify's signers insist on extractable private keys, so the loaded keys are extractable;
// treat the returned objects as secrets.
import { chmod, mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { exportJwk, importJwk } from '@fedify/fedify';

export interface TernKeyPairs {
  /** RSASSA-PKCS1-v1_5, 2048 bits, SHA-256: for HTTP signatures (publicKeyPem). */
  rsa: CryptoKeyPair;
  /** Ed25519: for Object Integrity Proofs (assertionMethod / Multikey). */
  ed25519: CryptoKeyPair;
}

export const KEY_FILES = {
  rsaPrivate: 'rsa-private.pem',
  rsaPublic: 'rsa-public.pem',
  ed25519Private: 'ed25519-private.jwk.json',
  ed25519Public: 'ed25519-public.jwk.json',
} as const;

const RSA = { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' } as const;

function toPem(label: string, der: ArrayBuffer): string {
  const lines = Buffer.from(der).toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----\n`;
}

function fromPem(label: string, pem: string): Uint8Array<ArrayBuffer> {
  const body = pem.match(new RegExp(`-----BEGIN ${label}-----([^-]+)-----END ${label}-----`))?.[1];
  if (body === undefined) throw new TypeError(`Not a PEM ${label}`);
  return new Uint8Array(Buffer.from(body.replace(/\s+/g, ''), 'base64'));
}

/** The SPKI PEM that goes into the actor's publicKey.publicKeyPem. */
export async function exportPublicKeyPem(publicKey: CryptoKey): Promise<string> {
  if (publicKey.type !== 'public') throw new TypeError('exportPublicKeyPem takes a public key');
  return toPem('PUBLIC KEY', await crypto.subtle.exportKey('spki', publicKey));
}

async function writeSecret(path: string, text: string): Promise<void> {
  // 'wx': never overwrite a key; losing it would change the author's identity for every peer.
  await writeFile(path, text, { mode: 0o600, flag: 'wx' });
  await chmod(path, 0o600);
}

/** Creates both key pairs in `dir`. Refuses if any key file already exists there. */
export async function generateKeyPairFiles(dir: string): Promise<TernKeyPairs> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  for (const name of Object.values(KEY_FILES)) {
    const exists = await stat(join(dir, name)).then(
      () => true,
      () => false,
    );
    if (exists) throw new Error(`Refusing to overwrite the existing key file ${name}`);
  }
  const rsa = await crypto.subtle.generateKey(
    { ...RSA, modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]) },
    true,
    ['sign', 'verify'],
  );
  const ed25519 = (await crypto.subtle.generateKey('Ed25519', true, ['sign', 'verify'])) as CryptoKeyPair;
  await writeSecret(join(dir, KEY_FILES.rsaPrivate), toPem('PRIVATE KEY', await crypto.subtle.exportKey('pkcs8', rsa.privateKey)));
  await writeSecret(join(dir, KEY_FILES.rsaPublic), await exportPublicKeyPem(rsa.publicKey));
  await writeSecret(join(dir, KEY_FILES.ed25519Private), JSON.stringify(await exportJwk(ed25519.privateKey)));
  await writeSecret(join(dir, KEY_FILES.ed25519Public), JSON.stringify(await exportJwk(ed25519.publicKey)));
  return { rsa, ed25519 };
}

async function readSecret(path: string): Promise<string> {
  // Tighten a file someone loosened (a restore from backup, a copy with a permissive umask).
  if (process.platform !== 'win32' && ((await stat(path)).mode & 0o077) !== 0) await chmod(path, 0o600);
  return readFile(path, 'utf8');
}

/** Loads the key pairs written by generateKeyPairFiles. */
export async function loadKeyPair(dir: string): Promise<TernKeyPairs> {
  const [rsaPrivate, rsaPublic, edPrivate, edPublic] = await Promise.all(
    [KEY_FILES.rsaPrivate, KEY_FILES.rsaPublic, KEY_FILES.ed25519Private, KEY_FILES.ed25519Public].map((name) =>
      readSecret(join(dir, name)),
    ),
  );
  return {
    rsa: {
      privateKey: await crypto.subtle.importKey('pkcs8', fromPem('PRIVATE KEY', rsaPrivate ?? ''), RSA, true, ['sign']),
      publicKey: await crypto.subtle.importKey('spki', fromPem('PUBLIC KEY', rsaPublic ?? ''), RSA, true, ['verify']),
    },
    ed25519: {
      privateKey: await importJwk(JSON.parse(edPrivate ?? '') as JsonWebKey, 'private'),
      publicKey: await importJwk(JSON.parse(edPublic ?? '') as JsonWebKey, 'public'),
    },
  };
}

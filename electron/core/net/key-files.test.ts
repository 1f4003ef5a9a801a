import { chmod, mkdtemp, readFile, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { KEY_FILES, exportPublicKeyPem, generateKeyPairFiles, loadKeyPair } from './key-files';

const posix = process.platform !== 'win32';
let root: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'tern-keys-'));
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const data = new TextEncoder().encode('a message to sign');

describe('key files', () => {
  it('generates RSA-2048 and Ed25519 pairs in files only the user can read', async () => {
    const dir = join(root, 'keys');
    const pairs = await generateKeyPairFiles(dir);
    expect((pairs.rsa.publicKey.algorithm as RsaHashedKeyAlgorithm).modulusLength).toBe(2048);
    expect(pairs.ed25519.privateKey.algorithm.name).toBe('Ed25519');
    expect((await readdir(dir)).sort()).toEqual(Object.values(KEY_FILES).sort());
    if (posix) {
      expect((await stat(dir)).mode & 0o777).toBe(0o700);
      for (const name of Object.values(KEY_FILES)) expect((await stat(join(dir, name))).mode & 0o777).toBe(0o600);
    }
  });

  it('loads what it wrote: signatures by the loaded keys verify with the generated ones', async () => {
    const generated = await generateKeyPairFiles(root);
    const loaded = await loadKeyPair(root);
    const rsaSig = await crypto.subtle.sign('RSASSA-PKCS1-v1_5', loaded.rsa.privateKey, data);
    expect(await crypto.subtle.verify('RSASSA-PKCS1-v1_5', generated.rsa.publicKey, rsaSig, data)).toBe(true);
    const edSig = await crypto.subtle.sign('Ed25519', loaded.ed25519.privateKey, data);
    expect(await crypto.subtle.verify('Ed25519', generated.ed25519.publicKey, edSig, data)).toBe(true);
    expect(await exportPublicKeyPem(loaded.rsa.publicKey)).toBe(await exportPublicKeyPem(generated.rsa.publicKey));
  });

  it('never overwrites existing keys', async () => {
    await generateKeyPairFiles(root);
    const before = await readFile(join(root, KEY_FILES.rsaPrivate), 'utf8');
    await expect(generateKeyPairFiles(root)).rejects.toThrow(/overwrite/);
    expect(await readFile(join(root, KEY_FILES.rsaPrivate), 'utf8')).toBe(before);
  });

  it.runIf(posix)('tightens a private key file someone made readable by others', async () => {
    await generateKeyPairFiles(root);
    await chmod(join(root, KEY_FILES.rsaPrivate), 0o644);
    await loadKeyPair(root);
    expect((await stat(join(root, KEY_FILES.rsaPrivate))).mode & 0o777).toBe(0o600);
  });

  it('exports the public key as SPKI PEM, and refuses to export a private key', async () => {
    const { rsa } = await generateKeyPairFiles(root);
    const pem = await exportPublicKeyPem(rsa.publicKey);
    expect(pem).toMatch(/^-----BEGIN PUBLIC KEY-----\n[A-Za-z0-9+/=\n]+\n-----END PUBLIC KEY-----\n$/);
    expect(pem.split('\n').every((line) => line.length <= 64)).toBe(true);
    await expect(exportPublicKeyPem(rsa.privateKey)).rejects.toThrow(TypeError);
  });
});

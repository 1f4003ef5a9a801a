// The lean baseline the inbox is compared with in the same run: a bare node:http server that
// does the least an inbox must — reads the body, checks its Digest, verifies the draft-cavage
// HTTP signature with node:crypto against a cached public key (fetched once per key id from the
// same remote actor server Tern uses), parses the JSON and inserts one incoming_activity row
// (better-sqlite3, the app's pragmas, one autocommit per row), then answers 202. No Fedify, no
// Hono, no processing: what Tern's figures are divided by.
import { createHash, createPublicKey, verify, type KeyObject } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqlite, type Sqlite } from '../db/client';
import { upgrade } from '../migrations/runner';

export interface LeanBaseline {
  inboxUrl: string;
  rows(): number;
  failures(): number;
  close(): Promise<void>;
}

function body(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

const params = (header: string) => Object.fromEntries([...header.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1]!, m[2]!]));

export async function startLeanBaseline(): Promise<LeanBaseline> {
  const dir = mkdtempSync(join(tmpdir(), 'tern-bench-lean-'));
  const sqlite: Sqlite = openSqlite(join(dir, 'lean.db'));
  upgrade(sqlite);
  const insert = sqlite.prepare(
    'INSERT INTO incoming_activity (created_at, sent_by_ap_actor_id, ap_id, ap_object, tries, next_try, is_processed, is_errored) VALUES (?, ?, ?, ?, 0, ?, 0, 0)',
  );
  const keys = new Map<string, Promise<{ key: KeyObject; owner: string }>>();
  const keyOf = (keyId: string) => {
    let key = keys.get(keyId);
    if (!key) {
      key = fetch(keyId.split('#')[0]!, { headers: { accept: 'application/activity+json' } })
        .then((r) => r.json() as Promise<{ id: string; publicKey: { publicKeyPem: string } }>)
        .then((doc) => ({ key: createPublicKey(doc.publicKey.publicKeyPem), owner: doc.id }));
      keys.set(keyId, key);
    }
    return key;
  };
  let failures = 0;
  let rows = 0;
  const server: Server = createServer((req, res) => {
    void (async () => {
      const bytes = await body(req);
      const signature = params(String(req.headers.signature ?? ''));
      const digest = `SHA-256=${createHash('sha256').update(bytes).digest('base64')}`;
      if (!signature.keyId || !signature.signature || req.headers.digest !== digest) throw new Error('unsigned or bad digest');
      const signed = (signature.headers ?? 'date')
        .split(' ')
        .map((name) => (name === '(request-target)' ? `${name}: ${(req.method ?? '').toLowerCase()} ${req.url ?? ''}` : `${name}: ${String(req.headers[name] ?? '')}`))
        .join('\n');
      const { key, owner } = await keyOf(signature.keyId);
      if (!verify('sha256', Buffer.from(signed), key, Buffer.from(signature.signature, 'base64'))) throw new Error('bad signature');
      const activity = JSON.parse(bytes.toString('utf8')) as { id?: string };
      const now = new Date().toISOString();
      insert.run(now, owner, activity.id ?? null, bytes.toString('utf8'), now);
      rows++;
      res.writeHead(202).end();
    })().catch(() => {
      failures++;
      res.writeHead(401).end();
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    inboxUrl: `http://127.0.0.1:${port}/inbox`,
    rows: () => rows,
    failures: () => failures,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      sqlite.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

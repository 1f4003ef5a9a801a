// Host names that do not name a public server (localhost with its trailing dot, .localhost,
// .local, a single label, empty labels) are refused by the one outbound client before any DNS,
// with a typed error every caller treats as final; a name that does not exist is a typed
// HostNotFoundError. A look-up of either is "not found", never an internal error.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpClient, isLocalOnlyName } from './http-client';
import { BlockedAddressError, HostNotFoundError, RefusedHostError } from './errors';
import { openCore, type Core } from '../core';
import { createSettingsService } from '../settings-service';
import { lookup } from '../federation/lookup';
import { NotFoundError } from '../errors';

const REFUSED = ['localhost.', 'localhost..', 'foo.localhost', 'printer.local', 'db.internal', 'intranet', 'a..b', 'x.invalid'];

describe('the outbound client and host names', () => {
  const client = createHttpClient({ userAgent: 'test', timeoutMs: 3000 });
  afterAll(() => client.close());

  it('knows the local-only names, and not public ones', () => {
    for (const name of REFUSED) expect(isLocalOnlyName(name.replace(/\.$/, '')), name).toBe(true);
    for (const name of ['mastodon.social', 'blog.example.com', 'xn--bcher-kva.example']) expect(isLocalOnlyName(name), name).toBe(false);
  });

  it.each(REFUSED)('refuses %s before resolving it (RefusedHostError, a BlockedAddressError)', async (host) => {
    const error = await client.fetch(`https://${host}/x`).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RefusedHostError);
    expect(error).toBeInstanceOf(BlockedAddressError);
    expect((error as Error).message).toContain('not a public host name');
  });

  it('a name that does not exist is HostNotFoundError, its resolver code kept as the cause', async () => {
    const error = await client.fetch('http://no-such-host-for-tern-tests.com/x').catch((e: unknown) => e);
    // Without DNS at all (EAI_AGAIN) the error stays a plain, retryable one.
    if (error instanceof HostNotFoundError) expect((error.cause as { code?: string }).code).toBe('ENOTFOUND');
    else expect((error as { cause?: { code?: string } }).cause?.code ?? (error as { code?: string }).code).toBe('EAI_AGAIN');
  });
});

describe('look-ups of such names are "not found"', () => {
  let core: Core;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tern-hostnames-'));
    core = await openCore({ dataDir: dir, mode: 'headless' });
    await createSettingsService(core).update({ baseUrl: 'https://me.example', username: 'me' });
  });
  afterAll(() => {
    core.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it.each(['@bob@localhost.', 'https://localhost./users/bob', '@bob@intranet', 'https://printer.local/users/bob'])('%s', async (query) => {
    const local = core.identity()!;
    const error = await lookup({ db: core.db, fed: core.fed, clock: core.clock, local }, query).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotFoundError);
    expect((error as Error).message).toMatch(/not a public host name/);
  });
});

// The checks worker's warm-up (checks-warmup.ts) verifies its own request by both specs, with
// no request leaving the thread, and the worker says ready only after it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openFederationContext, type FederationContext } from '../net/federation-context';
import { warmUpChecks } from './checks-warmup';

describe('warmUpChecks', () => {
  let dir: string;
  let fed: FederationContext;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tern-warmup-'));
    fed = await openFederationContext(dir, false);
  });
  afterAll(() => {
    fed.client.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('verifies a request of its own by draft-cavage and RFC 9421, without a request on the network', async () => {
    const fetchSpy = vi.spyOn(globalThis, 'fetch');
    const requests = [vi.spyOn(fed.client, 'fetch'), vi.spyOn(fed.client, 'fetchText'), vi.spyOn(fed.client, 'fetchJson')];
    expect(await warmUpChecks(fed)).toBe(true);
    expect(fetchSpy).not.toHaveBeenCalled();
    for (const spy of requests) expect(spy).not.toHaveBeenCalled();
    // Nothing of it stays in the context's own key cache.
    expect(fed.keyCache.size).toBe(0);
    fetchSpy.mockRestore();
  });
});

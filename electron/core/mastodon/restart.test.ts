// What a phone app set survives a restart (both live in the settings file): read markers, read
// back from a core reopened on the same data folder with their versions counting on, and the alt
// text of an upload not yet posted, which the post made after the restart takes.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { openCore, type Core } from '../core';
import { createSettingsService } from '../settings-service';
import { createSettingsStore, MAX_PENDING_ALT } from '../settings';
import * as S from './entity-schemas';
import { createDescriptions } from './media-routes';
import { call, pngBytes, signIn, type MastodonRig } from './test-support';

const dir = mkdtempSync(join(tmpdir(), 'tern-markers-'));
const Marker = z.object({ last_read_id: z.string(), version: z.number().int(), updated_at: z.iso.datetime() });

async function open(port: number): Promise<{ core: Core; t: MastodonRig }> {
  const core = await openCore({ dataDir: dir, mode: 'headless', allowPrivateAddresses: true, listen: { host: '127.0.0.1', port } });
  const url = core.listener.status().url ?? '';
  if (port === 0) await createSettingsService(core).update({ baseUrl: url, username: 'alice' });
  return { core, t: { url, rig: { core } } as unknown as MastodonRig };
}
const shut = async (core: Core) => {
  await core.listener.stop();
  core.close();
};
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('markers', () => {
  it('are kept in the settings file and read back after a restart', async () => {
    const first = await open(0);
    const { token } = await signIn(first.t, ['read', 'write']);
    expect((await call(first.t, token, 'POST', '/api/v1/markers', { home: { last_read_id: '3856054749325426693' } })).status).toBe(200);
    const set = await call(first.t, token, 'POST', '/api/v1/markers', { home: { last_read_id: '3856054749325426700' }, notifications: { last_read_id: '12' } });
    expect(z.record(z.string(), Marker).parse(set.json)).toMatchObject({ home: { last_read_id: '3856054749325426700', version: 2 }, notifications: { last_read_id: '12', version: 1 } });
    const form = new FormData();
    form.set('file', new File([new Uint8Array(await pngBytes(20, 10))], 'x.png', { type: 'image/png' }));
    form.set('description', 'A small orange square');
    const media = (await (await fetch(`${first.t.url}/api/v2/media`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form })).json()) as { id: string };
    const port = Number(new URL(first.t.url).port);
    await shut(first.core);
    expect(readFileSync(join(dir, 'settings.json'), 'utf8')).toContain('3856054749325426700');

    const second = await open(port);
    try {
      const read = await call(second.t, token, 'GET', '/api/v1/markers?timeline[]=home&timeline[]=notifications');
      expect(read.status).toBe(200);
      expect(z.record(z.string(), Marker).parse(read.json)).toMatchObject({ home: { last_read_id: '3856054749325426700', version: 2 }, notifications: { last_read_id: '12', version: 1 } });
      const again = await call(second.t, token, 'POST', '/api/v1/markers', { notifications: { last_read_id: '13' } });
      expect(again.json).toMatchObject({ notifications: { last_read_id: '13', version: 2 }, home: { version: 2 } });
      expect((await call(second.t, token, 'POST', '/api/v1/markers', { home: { last_read_id: 'x' } })).status).toBe(422);
      expect(((await call(second.t, token, 'GET', '/api/v1/markers?timeline[]=home')).json as { home: { last_read_id: string } }).home.last_read_id).toBe('3856054749325426700');

      expect(((await call(second.t, token, 'GET', `/api/v1/media/${media.id}`)).json as { description: string | null }).description).toBe('A small orange square');
      const status = S.Status.parse((await call(second.t, token, 'POST', '/api/v1/statuses', { status: 'Square', media_ids: [media.id] })).json);
      expect(status.media_attachments[0]!.description).toBe('A small orange square');
      expect(second.core.settings.get().mastodonPendingAlt).toEqual([]);
    } finally {
      await shut(second.core);
    }
  });
});

describe('pending alt texts', () => {
  it('keep the newest past the bound, replace on a second set, and go on delete', () => {
    const path = join(dir, 'alt-settings.json');
    const store = createSettingsStore(path);
    const alt = createDescriptions(store);
    for (let id = 1; id <= MAX_PENDING_ALT + 5; id++) alt.set(id, `alt ${id}`);
    expect(alt.get(1)).toBeUndefined();
    expect(alt.get(6)).toBe('alt 6');
    alt.set(6, 'changed');
    expect(alt.get(6)).toBe('changed');
    expect(store.get().mastodonPendingAlt).toHaveLength(MAX_PENDING_ALT);
    alt.delete(6);
    expect(alt.get(6)).toBeUndefined();
    expect(createDescriptions(createSettingsStore(path)).get(7)).toBe('alt 7');
  });
});

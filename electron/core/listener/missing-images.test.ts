// The pictures of an account that has none: served to anyone (no token), as PNGs, cached long.
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openListeningCore, type ListeningCore } from './test-support';

let t: ListeningCore;
beforeAll(async () => {
  t = await openListeningCore('alice');
});
afterAll(async () => t?.close());

describe('missing.png', () => {
  it('the avatar and the header are grey PNGs anyone may fetch, cached for a year', async () => {
    for (const [path, width] of [
      ['/avatars/original/missing.png', 96],
      ['/headers/original/missing.png', 3],
    ] as const) {
      const response = await fetch(`${t.url}${path}`, { redirect: 'manual' });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('image/png');
      expect(response.headers.get('cache-control')).toContain('max-age=31536000');
      const meta = await sharp(Buffer.from(await response.arrayBuffer())).metadata();
      expect(meta).toMatchObject({ format: 'png', width });
    }
  });
});

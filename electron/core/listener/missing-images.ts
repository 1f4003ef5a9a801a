// The pictures of an account that has none, at Mastodon's own paths: a remote account without an
// icon (or a banner) is shown by phone apps with these, never with the author's picture (the
// account entity once fell back to /avatar.svg, which shows the author). Plain grey PNGs — a
// raster image every client can draw — public, with no identity needed, cached for a year.
import type { Hono } from 'hono';
import type { ListenerEnv } from './context';

export const MISSING_AVATAR_PATH = '/avatars/original/missing.png';
export const MISSING_HEADER_PATH = '/headers/original/missing.png';

// 96×96 and 3×1 of #9aa0a6 (made with sharp, palette PNG).
const AVATAR = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAGAAAABgCAMAAADVRocKAAAAA1BMVEWaoKbGTLrIAAAACXBIWXMAAAPoAAAD6AG1e1JrAAAAIElEQVRo3u3BgQAAAADDoPlTX+AIVQEAAAAAAAAAAHwDJGAAAVoqS2sAAAAASUVORK5CYII=',
  'base64',
);
const HEADER = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAMAAAABCAMAAAAsPuSGAAAAA1BMVEWaoKbGTLrIAAAACXBIWXMAAAPoAAAD6AG1e1JrAAAADElEQVQI12NgYGAAAAAEAAEnNCcKAAAAAElFTkSuQmCC', 'base64');

export function mountMissingImages(app: Hono<ListenerEnv>): void {
  for (const [path, bytes] of [
    [MISSING_AVATAR_PATH, AVATAR],
    [MISSING_HEADER_PATH, HEADER],
  ] as const) {
    app.get(path, (c) => c.body(new Uint8Array(bytes), 200, { 'Content-Type': 'image/png', 'Cache-Control': 'public, max-age=31536000, immutable', 'Access-Control-Allow-Origin': '*' }));
  }
}

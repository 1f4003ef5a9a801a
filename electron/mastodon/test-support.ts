// Test support for the Mastodon API: an author rig (real core, listener, loops) with a Fedify
// peer following it, and the author's side of signing in — approving the app's request through
// the same IPC call the Apps view makes. Not imported by production code.
import sharp from 'sharp';
import { openAuthorRig, type AuthorRig } from '../federation/actions/test-rig';
import { answer } from '../indieauth/test-flow';
import { startPeer, type Peer } from '../../test/peer/peer';

export const APP_REDIRECT = 'com.example.phone.19300:/request_token';

export interface MastodonRig {
  rig: AuthorRig;
  peer: Peer;
  url: string;
  close(): Promise<void>;
}

export async function openMastodonRig(): Promise<MastodonRig> {
  const [rig, peer] = await Promise.all([openAuthorRig(), startPeer({ name: 'fan' })]);
  await peer.follow(rig.url);
  await peer.waitFor((x) => x.type === 'Accept');
  return {
    rig,
    peer,
    url: rig.url,
    async close() {
      await peer.close();
      await rig.close();
    },
  };
}

/** Opens the authorize URL as a browser would, lets the author approve in "the app", and
 * follows the waiting page back: the code the app receives on its redirect URI. */
export async function approveAndCollect(t: MastodonRig, authorizeUrl: string, scopes: string[]): Promise<string> {
  const start = await fetch(authorizeUrl, { redirect: 'manual' });
  if (start.status !== 303) throw new Error(`authorize refused: ${start.status} ${await start.text()}`);
  const wait = new URL(start.headers.get('location')!, t.url).href;
  const waiting = await fetch(wait, { redirect: 'manual' });
  if (waiting.status !== 200) throw new Error(`no waiting page: ${waiting.status}`);
  await answer(t.rig.core, true, scopes);
  const back = await fetch(wait, { redirect: 'manual' });
  const location = back.headers.get('location');
  if (back.status !== 302 || !location) throw new Error(`no redirect back: ${back.status}`);
  const code = new URL(location).searchParams.get('code');
  if (!code) throw new Error(`no code in ${location}`);
  return code;
}

export async function pngBytes(width = 64, height = 48): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: { r: 200, g: 120, b: 40 } } }).png().toBuffer();
}

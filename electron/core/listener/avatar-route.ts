// The author's picture for the h-card's u-photo: the uploaded picture (Settings → Profile) when
// there is one, else GET /avatar.svg, the initials of the display name on a fixed colour, as the
// app draws avatars — an SVG with no script and no external reference, served under the pages'
// strict CSP. /avatar.svg redirects to the picture once one is set (old links keep working).
import type { Hono } from 'hono';
import type { LocalActor } from '../federation/identity';
import { profileImageUrl } from '../media/profile-images';
import type { Settings } from '../settings';
import type { ListenerCore, ListenerEnv } from './context';
import { escapeHtml } from './pages';

export const AVATAR_PATH = '/avatar.svg';

export function initialsOf(name: string): string {
  const words = name.split(/[\s@._-]+/u).filter((w) => /\p{L}|\p{N}/u.test(w));
  return words.slice(0, 2).map((w) => [...w.replace(/[^\p{L}\p{N}]/gu, '')][0] ?? '').join('').toLocaleUpperCase() || '?';
}

/** The h-card's u-photo: the picture's public URL, else the initials at /avatar.svg. */
export function photoUrlOf(local: LocalActor, settings: Pick<Settings, 'avatar'>): string {
  return settings.avatar ? profileImageUrl(local, 'avatar', settings.avatar) : `${local.baseUrl}${AVATAR_PATH}`;
}

export function mountAvatarRoute(app: Hono<ListenerEnv>, core: ListenerCore): void {
  app.get(AVATAR_PATH, (c) => {
    const settings = core.settings.get();
    if (settings.avatar) {
      return c.redirect(profileImageUrl(c.var.local, 'avatar', settings.avatar), 302);
    }
    const name = settings.displayName || c.var.local.username;
    const svg =
      `<svg xmlns="http://www.w3.org/2000/svg" width="96" height="96" viewBox="0 0 96 96">` +
      `<rect width="96" height="96" rx="12" fill="#2a5db0"/>` +
      `<text x="48" y="60" font-family="system-ui,sans-serif" font-size="36" fill="#fff" text-anchor="middle">${escapeHtml(initialsOf(name))}</text></svg>`;
    return c.body(svg, 200, {
      'Content-Type': 'image/svg+xml',
      'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'",
      'Cache-Control': 'max-age=300',
    });
  });
}

// GET /avatar.svg: the author's picture for the h-card's u-photo. Tern has no uploaded avatar
// yet, so it is the initials of the display name on a fixed colour, as the app draws avatars —
// an SVG with no script and no external reference, served under the pages' strict CSP.
import type { Hono } from 'hono';
import type { ListenerCore, ListenerEnv } from './context';
import { escapeHtml } from './pages';

export const AVATAR_PATH = '/avatar.svg';

export function initialsOf(name: string): string {
  const words = name.split(/[\s@._-]+/u).filter((w) => /\p{L}|\p{N}/u.test(w));
  return words.slice(0, 2).map((w) => [...w.replace(/[^\p{L}\p{N}]/gu, '')][0] ?? '').join('').toLocaleUpperCase() || '?';
}

export function mountAvatarRoute(app: Hono<ListenerEnv>, core: ListenerCore): void {
  app.get(AVATAR_PATH, (c) => {
    const name = core.settings.get().displayName || c.var.local.username;
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

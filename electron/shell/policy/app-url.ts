// Where the app lives: the app:// origin the window loads the renderer from (never file://),
// and the in-app addresses (#/compose, #/notifications) the tray and OS notifications open.
// Pure: no electron import, so the rules are tested in plain Node.
export const APP_SCHEME = 'app';
export const APP_HOST = 'tern';
export const APP_ORIGIN = `${APP_SCHEME}://${APP_HOST}`;
export const APP_INDEX = `${APP_ORIGIN}/index.html`;

/** Is this frame URL (or origin) our app, and nothing else? Compared by scheme and host, not
 * by `URL.origin`: Node's URL does not know app:// as a special scheme and gives it origin
 * "null", which would make every comparison fail (or, worse, match another "null"). */
export function isAppUrl(raw: string | undefined | null): boolean {
  if (!raw) return false;
  try {
    const url = new URL(raw);
    return url.protocol === `${APP_SCHEME}:` && url.host === APP_HOST && !url.username && !url.password;
  } catch {
    return false;
  }
}

/** The window's address for an in-app place, e.g. appRoute('#/compose'). Only hash routes. */
export function appRoute(hash: string): string {
  if (!/^#\/[A-Za-z0-9_-]*(\?[^#\s]*)?$/.test(hash)) throw new Error(`Not an in-app route: ${hash}`);
  return `${APP_INDEX}${hash}`;
}

/** Only parsed http(s) URLs leave the app, to the OS browser; anything else is dropped. */
export function externalUrl(raw: string): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return null;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
  // A URL with credentials is a phishing shape ("https://bank.com@evil.example"); refuse it.
  if (url.username || url.password || !url.hostname) return null;
  return url.href;
}

/**
 * Maps an app:// request to a file inside the renderer folder, or null (404). Refuses other
 * hosts, encoded traversal ("..%2f"), NUL bytes and anything resolving outside `rendererDir`.
 * `join`/`normalize`/`sep` are passed in so the rule is tested for both POSIX and Windows paths.
 */
export function resolveAppFile(
  rendererDir: string,
  requestUrl: string,
  path: { join: (...p: string[]) => string; normalize: (p: string) => string; sep: string },
): string | null {
  let url: URL;
  try {
    url = new URL(requestUrl);
  } catch {
    return null;
  }
  if (url.protocol !== `${APP_SCHEME}:` || url.host !== APP_HOST) return null;
  let relative: string;
  try {
    relative = decodeURIComponent(url.pathname === '/' ? '/index.html' : url.pathname);
  } catch {
    return null;
  }
  if (relative.includes('\0')) return null;
  const root = path.normalize(rendererDir);
  const file = path.normalize(path.join(root, relative));
  return file.startsWith(root.endsWith(path.sep) ? root : root + path.sep) ? file : null;
}

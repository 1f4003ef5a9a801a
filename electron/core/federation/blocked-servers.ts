// The author's list of blocked servers: an entry blocks its host and every subdomain of it
// (like the service behind the spec), and an entry with a port blocks exactly that host:port.
// Entries may be written as bare hosts or as URLs; case does not matter.

function entryOf(raw: string): { hostname: string; port: string | null } | null {
  let text = raw.trim().toLowerCase();
  if (text === '') return null;
  text = text.replace(/^\*?\./, '');
  try {
    const url = new URL(/^[a-z][a-z0-9+.-]*:\/\//.test(text) ? text : `http://${text}`);
    return { hostname: url.hostname, port: url.port === '' ? null : url.port };
  } catch {
    return null;
  }
}

/** Whether the server of `url` is blocked by one of `blocked`. */
export function isBlockedUrl(url: string, blocked: readonly string[]): boolean {
  if (blocked.length === 0) return false;
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return false;
  }
  const hostname = target.hostname.toLowerCase();
  return blocked.some((raw) => {
    const entry = entryOf(raw);
    if (entry === null) return false;
    if (entry.port !== null) return hostname === entry.hostname && target.port === entry.port;
    return hostname === entry.hostname || hostname.endsWith(`.${entry.hostname}`);
  });
}

// Trailing slashes cut from ids, URLs and paths, ours and other servers'. Not with
// `.replace(/\/+$/, '')`: a regex engine tries that pattern at each slash of a run and scans the
// rest of the run each time, so a remote id of 64 KiB of slashes and one other character took
// 6 s. Every place uses this one, so none is left to check for whether its input is remote.

/** `text` without the slashes it ends with. */
export function withoutTrailingSlashes(text: string): string {
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 0x2f /* '/' */) end--;
  return end === text.length ? text : text.slice(0, end);
}

/** `text` up to its first `#` (the whole of it when there is none). */
export function withoutFragment(text: string): string {
  const at = text.indexOf('#');
  return at === -1 ? text : text.slice(0, at);
}

/** The other spelling of a bare origin's id: `https://host/` for `https://host` and back; null
 * for any id with a path. Fedify writes a bare origin with the slash, microblog.pub (whose actor
 * is its origin) without it (interop-notes): both name the one actor. */
export function bareOriginTwin(id: string): string | null {
  const scheme = id.startsWith('https://') ? 8 : id.startsWith('http://') ? 7 : 0;
  if (scheme === 0) return null;
  const slash = id.indexOf('/', scheme);
  if (slash === -1) return id.length > scheme && !/[?#]/.test(id) ? `${id}/` : null;
  return slash === id.length - 1 && slash > scheme && !/[?#]/.test(id) ? id.slice(0, slash) : null;
}

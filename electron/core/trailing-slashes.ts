// Trailing slashes cut from ids and paths that come from other servers. Not with
// `.replace(/\/+$/, '')`: a regex engine tries that pattern at each slash of a run and scans the
// rest of the run each time, so an id of 64 KiB of slashes and one other character took 6 s.

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

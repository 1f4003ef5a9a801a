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

// Picking the values (`<uri>; param=value; …`, RFC 8288) out of a remote `Link` header in time
// linear in the header. Each caller's regex for a value begins `<([^>]*)>`; matchAll tries it at
// every `<`, and at a `<` with no `>` after it the regex scans to the end of the header before
// failing, then tries the next `<`: quadratic, 260–390 ms for a 16 KiB header of `<<<…` (the
// size Node's HTTP parser lets through), on the main thread.

/**
 * The matches of `value` in `header`, as `header.matchAll(value)` gives them for a regex whose
 * every match begins with `<` and holds a `>` — but tried only at a `<` with a `>` after it,
 * since no match can begin after the header's last `>`. Linear when `value` matches at every
 * such `<` (its parameters optional) in time proportional to what it matches.
 */
export function* linkValues(header: string, value: RegExp): Generator<RegExpExecArray> {
  // A sticky copy, tried exactly where it is put, and private to this walk.
  const sticky = new RegExp(value, 'y');
  const last = header.lastIndexOf('>');
  for (let at = header.indexOf('<'); at !== -1 && at < last; ) {
    sticky.lastIndex = at;
    const match = sticky.exec(header);
    at = header.indexOf('<', match === null ? at + 1 : sticky.lastIndex);
    if (match !== null) yield match;
  }
}

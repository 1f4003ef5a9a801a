// U+0000 in what the author writes (a post, its title, content warning, poll options, alt texts;
// the profile): invisible in every editor, and refused by peers that keep text in PostgreSQL —
// Mastodon, Pleroma, Misskey, GoToSocial on Postgres take the delivery (202) and then fail to
// store it, so the post is never seen there. Taken out where the author's input enters the
// services, before anything is stored or sent. (Remote text is sanitized where it is stored.)

/** `value` with U+0000 taken out of every string in it (plain objects and arrays walked; other
 * values — numbers, bytes, dates — as they are). The input is not changed. */
export function withoutNul<T>(value: T): T {
  if (typeof value === 'string') return (value.includes('\u0000') ? value.replaceAll('\u0000', '') : value) as T;
  if (Array.isArray(value)) return value.map((item: unknown) => withoutNul(item)) as T;
  if (value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, withoutNul(item)])) as T;
  }
  return value;
}

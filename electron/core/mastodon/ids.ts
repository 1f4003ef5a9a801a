// Mastodon ids. A status id is a decimal signed 64-bit integer, as Mastodon's own snowflakes are,
// so clients that parse ids as 64-bit numbers (several do) work: the row's published time in ms
// since 2000-01-01 (41 bits, clamped: 2000–2069) · origin (1 bit: 0 inbox, 1 outbox) · the row
// id's low 21 bits. Padded to 19 digits, ids compare alike as numbers and as strings, in the home
// stream's own order (published, origin, row), and are stable: the same row always has the same
// id. Decoding is exact: the (time, origin, low bits) triple is looked up (row-keys.ts); two rows
// of one table share it only if published the same millisecond 2 million rows apart. An id whose
// time does not match its row's is unknown (ids are not guessable shortcuts). Accounts are actor
// row ids (the author is "0"), notifications and media their row ids, a poll its status's id.
import type { Origin, RowKey } from '../federation/actions/reads';

export const ROW_BITS = 21;
const ROW_MASK = (1n << BigInt(ROW_BITS)) - 1n;
const ORIGIN_BIT = 1n << BigInt(ROW_BITS);
const TIME_SHIFT = BigInt(ROW_BITS) + 1n;
const EPOCH_MS = Date.UTC(2000, 0, 1);
/** One short of 41 bits, so no id is 2^63 - 1 itself (some clients read it as "none"). */
const MAX_MS = 2 ** 41 - 2;
/** Largest signed 64-bit integer: any larger bound is "after everything". */
const MAX_ID = (1n << 63n) - 1n;

/** A row's published time as an id holds it: ms since 2000, clamped to 41 bits. */
export const idTimeOf = (published: Date) => Math.min(MAX_MS, Math.max(0, published.getTime() - EPOCH_MS));

export function statusId(key: RowKey): string {
  const n = (BigInt(idTimeOf(key.published)) << TIME_SHIFT) | (key.origin === 'outbox' ? ORIGIN_BIT : 0n) | (BigInt(key.id) & ROW_MASK);
  return n.toString().padStart(19, '0');
}

/** What an id spells: a time (as idTimeOf gives it), an origin and a row id's low bits. */
export interface IdParts {
  time: number;
  origin: Origin;
  low: number;
}

function decode(id: string): IdParts | null {
  if (!/^\d{1,19}$/.test(id)) return null;
  const n = BigInt(id);
  if (n > MAX_ID) return null;
  return { time: Number(n >> TIME_SHIFT), origin: n & ORIGIN_BIT ? 'outbox' : 'inbox', low: Number(n & ROW_MASK) };
}

/** The stored row (deleted or not) whose key has these parts, if any. */
export type FindKey = (parts: IdParts) => RowKey | null;

/** The row a status id names; null when no row has its time, origin and low bits. */
export function parseStatusId(id: string, find: FindKey): RowKey | null {
  const parts = decode(id);
  return parts && find(parts);
}

/** A page bound (max_id, since_id, min_id): a status id, or any digits (taken as a time). Clients
 * sometimes pass an id of another kind or a made-up one; Mastodon compares, and so does Tern. A
 * stored row's id (a deleted post's too) gives its exact key; other digits the key they spell. */
export function boundKey(id: string | undefined, find: FindKey): RowKey | null {
  if (id === undefined) return null;
  const digits = id.replace(/^0+/, '') || '0';
  if (!/^\d+$/.test(digits)) return null;
  if (digits.length > 19 || BigInt(digits) > MAX_ID) return { published: new Date(8.64e15), origin: 'outbox', id: Number.MAX_SAFE_INTEGER };
  const parts = decode(digits)!;
  return find(parts) ?? { published: new Date(EPOCH_MS + parts.time), origin: parts.origin, id: parts.low };
}

export const OWN_ACCOUNT_ID = '0';

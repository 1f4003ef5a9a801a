// Mastodon ids. Statuses: 23 digits, `published ms (13) · origin (1: inbox, 2: outbox) · row id
// (9)`, so ids compare as strings in the home stream's own order (published, then origin, then
// row) and are stable — the same row always has the same id — and a row's id names its table.
// An id whose time does not match its row's is unknown (ids are not guessable shortcuts).
// Accounts are actor row ids (the author is "0"), notifications and media their row ids, a
// poll the id of its status.
import type { Origin, RowKey } from '../federation/actions/reads';

const STATUS_ID = /^(\d{13})([12])(\d{9})$/;

export function statusId(key: RowKey): string {
  const ms = Math.max(0, key.published.getTime());
  return `${String(ms).padStart(13, '0')}${key.origin === 'inbox' ? '1' : '2'}${String(key.id).padStart(9, '0')}`;
}

export function parseStatusId(id: string): RowKey | null {
  const match = STATUS_ID.exec(id);
  if (!match) return null;
  const origin: Origin = match[2] === '1' ? 'inbox' : 'outbox';
  return { published: new Date(Number(match[1])), origin, id: Number(match[3]) };
}

export const sameKey = (a: RowKey, b: RowKey) => a.origin === b.origin && a.id === b.id && a.published.getTime() === b.published.getTime();

/** A page bound (max_id, since_id, min_id): a status id, or any digits (taken as a time). Clients
 * sometimes pass an id of another kind or a made-up one; Mastodon compares, and so does Tern. */
export function boundKey(id: string | undefined): RowKey | null {
  if (id === undefined) return null;
  const parsed = parseStatusId(id);
  if (parsed) return parsed;
  const padded = id.replace(/^0+/, '').padStart(23, '0');
  if (padded.length > 23) return { published: new Date(8.64e15), origin: 'outbox', id: Number.MAX_SAFE_INTEGER };
  return parseStatusId(padded.slice(0, 13) + (padded[13] === '2' ? '2' : '1') + padded.slice(14)) ?? null;
}

export const OWN_ACCOUNT_ID = '0';

// Polls as ActivityPub Questions (Mastodon's shape, which every server that has polls reads):
// the options under `oneOf` (single choice) or `anyOf` (multiple), each a Note with a `name`
// and a `replies` collection whose totalItems is that option's tally, plus `endTime`,
// `votersCount` and, once over, `closed`. Pure functions over the stored JSON: building a new
// poll, reading one (ours or a remote one — any field may be missing or odd), writing tallies,
// and the published form of ours (hidden totals withheld until the poll closes).
import type { JsonValue } from '../../../../db/schema';
import { asArray, isObject, str, typeOf, type Json } from '../ap';

export const POLL_LIMITS = { minOptions: 2, maxOptions: 10, maxOptionChars: 200, minSeconds: 300, maxSeconds: 30 * 24 * 3600 } as const;
/** Options read from any Question (a remote one may list thousands: every read of it, each
 * render and each vote, would walk them all). Mastodon allows 4 by default, others up to ~100. */
export const MAX_READ_OPTIONS = 100;

export type PollKind = 'oneOf' | 'anyOf';

/** Where Tern keeps "hide totals until closed" on its own Questions. Never published: the
 * output filter (publishedQuestion) removes it, as it removes the hidden tallies. */
export const HIDE_TOTALS_KEY = '_tern_hide_totals';

export interface PollSpec {
  options: string[];
  multiple: boolean;
  durationSeconds: number;
  hideTotals: boolean;
}

export interface PollShape {
  kind: PollKind;
  options: { name: string; votes: number | null }[];
  votersCount: number | null;
  endTime: string | null;
  /** Set once the poll was closed (ISO), by us or by the remote server. */
  closed: string | null;
  hideTotals: boolean;
}

/** The poll fields of a new Question (to be merged into the post object). */
export function questionFields(spec: PollSpec, now: Date): Record<string, JsonValue> {
  const kind: PollKind = spec.multiple ? 'anyOf' : 'oneOf';
  const fields: Record<string, JsonValue> = {
    type: 'Question',
    [kind]: spec.options.map((name) => ({ type: 'Note', name, replies: { type: 'Collection', totalItems: 0 } })),
    endTime: new Date(now.getTime() + spec.durationSeconds * 1000).toISOString(),
    votersCount: 0,
  };
  if (spec.hideTotals) fields[HIDE_TOTALS_KEY] = true;
  return fields;
}

function count(value: unknown): number | null {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : null;
}

/** The poll of a Question, or null when the object carries no options. */
export function pollOf(object: Json): PollShape | null {
  // The list that has options: a lone option comes as an object (compacted JSON-LD), and an
  // empty list of the other kind beside it says nothing.
  const kind: PollKind | null = asArray(object.oneOf).length > 0 ? 'oneOf' : asArray(object.anyOf).length > 0 ? 'anyOf' : null;
  if (kind === null) return null;
  const options: PollShape['options'] = [];
  const seen = new Set<string>();
  for (const item of asArray(object[kind])) {
    if (options.length >= MAX_READ_OPTIONS) break;
    if (!isObject(item)) continue;
    const name = str(item.name);
    if (name === null || name === '' || seen.has(name)) continue;
    seen.add(name);
    options.push({ name, votes: isObject(item.replies) ? count(item.replies.totalItems) : null });
  }
  if (options.length === 0) return null;
  const endTime = str(object.endTime);
  const closed = typeof object.closed === 'string' ? object.closed : object.closed === true ? (endTime ?? '') : null;
  return {
    kind,
    options,
    votersCount: count(object.votersCount),
    endTime: endTime !== null && !Number.isNaN(Date.parse(endTime)) ? new Date(endTime).toISOString() : null,
    closed,
    hideTotals: object[HIDE_TOTALS_KEY] === true,
  };
}

/** Whether a new version of a Question asks another question: its options or its kind changed
 * (an edit, after which its server drops the votes cast — Mastodon's ProcessStatusUpdateService
 * resets them — so a choice made before no longer stands). New tallies alone change nothing, and
 * nor does a Question that lists no options (a partial Update, or one that only closes the poll:
 * it is the same poll, withStoredOptions keeps its options). A poll taken away (a Note) is a
 * change, and so is a poll added where there was none: a choice made in an earlier poll of the
 * post is not a choice in the new one. */
export function pollChanged(before: Json, after: Json): boolean {
  const shape = (object: Json) => {
    const poll = pollOf(object);
    return poll ? JSON.stringify([poll.kind, poll.options.map((o) => o.name)]) : null;
  };
  const [was, now] = [shape(before), shape(after)];
  if (was === now) return false;
  return !(now === null && typeOf(after) === 'Question');
}

/** A new version of a stored Question that lists no options of its own (a partial Update, or one
 * that only closes the poll), with the stored ones: the poll is still the one asked, and the
 * author's choice in it still stands. Any other new version is returned as it is. */
export function withStoredOptions(stored: Json, after: Json): Json {
  if (typeOf(after) !== 'Question' || pollOf(after) !== null || pollOf(stored) === null) return after;
  const kept: Json = { ...after };
  for (const kind of ['oneOf', 'anyOf'] as const) {
    if (stored[kind] === undefined) delete kept[kind];
    else kept[kind] = stored[kind];
  }
  return kept;
}

/** Whether a poll takes no more votes at `now`: closed, or past its end time. */
export function isClosed(poll: Pick<PollShape, 'closed' | 'endTime'>, now: Date): boolean {
  return poll.closed !== null || (poll.endTime !== null && Date.parse(poll.endTime) <= now.getTime());
}

export interface Tallies {
  votersCount: number;
  byOption: Map<string, number>;
}

/** The object with these tallies written in (options keep their order and other fields). */
export function withTallies(object: Json, tallies: Tallies): Json {
  const kind = Array.isArray(object.oneOf) ? 'oneOf' : 'anyOf';
  const options = asArray(object[kind]).map((item) => {
    if (!isObject(item)) return item;
    const name = str(item.name) ?? '';
    return { ...item, replies: { type: 'Collection', totalItems: tallies.byOption.get(name) ?? 0 } };
  });
  return { ...object, [kind]: options, votersCount: tallies.votersCount };
}

/** What a broadcast of the poll says: compared to know whether the last one is out of date. */
export function tallySignature(object: Json): string {
  const poll = pollOf(object);
  if (!poll) return '';
  return JSON.stringify([poll.votersCount, poll.options.map((o) => o.votes), poll.closed !== null]);
}

/**
 * Our Question as others see it. With "hide totals until closed", the per-option tallies are
 * withheld (each option's `replies` removed) while the poll is open; `votersCount` still says
 * how many voted. Mastodon's own hide_totals polls are serialised with a null per-option count
 * (its REST serializer and, as we read it, its ActivityPub one), and a missing `replies` reads
 * the same there (nil). The private flag itself is never published. Anything that is not one
 * of our hiding Questions is returned as it is.
 */
export function publishedQuestion(object: Json): Json {
  if (!(HIDE_TOTALS_KEY in object)) return object;
  const { [HIDE_TOTALS_KEY]: hide, ...rest } = object;
  if (hide !== true || typeof rest.closed === 'string') return rest;
  const kind = Array.isArray(rest.oneOf) ? 'oneOf' : 'anyOf';
  return {
    ...rest,
    [kind]: asArray(rest[kind]).map((item) => {
      if (!isObject(item)) return item;
      const { replies: _hidden, ...option } = item;
      return option;
    }),
  };
}

/** An activity (Create, Update) or object as published: a Question inside is filtered. */
export function publishedForm(value: Json): Json {
  if (isObject(value.object) && HIDE_TOTALS_KEY in value.object) return { ...value, object: publishedQuestion(value.object) };
  return publishedQuestion(value);
}

// The pure poll functions: reading a Question whatever a server sent, and what of ours is
// published while totals are hidden.
import { describe, expect, it } from 'vitest';
import type { Json } from '../ap';
import { HIDE_TOTALS_KEY, MAX_READ_OPTIONS, isClosed, pollChanged, pollOf, withStoredOptions, publishedForm, publishedQuestion, questionFields, tallySignature, withTallies } from './question';

const spec = { options: ['Tea', 'Coffee'], multiple: false, durationSeconds: 600, hideTotals: true };
const NOW = new Date('2030-01-01T00:00:00.000Z');

describe('reading a poll', () => {
  it('reads at most MAX_READ_OPTIONS options of a remote Question, quickly, however many it lists', () => {
    const oneOf = Array.from({ length: 60_000 }, (_, i) => ({ type: 'Note', name: `o${i}`, replies: { totalItems: 1 } }));
    const started = performance.now();
    const poll = pollOf({ type: 'Question', oneOf });
    expect(performance.now() - started).toBeLessThan(500);
    expect(poll!.options).toHaveLength(MAX_READ_OPTIONS);
    expect(poll!.options[0]).toEqual({ name: 'o0', votes: 1 });
  });

  it('reads Mastodon’s shape, skipping options without a name and duplicates', () => {
    const poll = pollOf({
      type: 'Question',
      anyOf: [{ name: 'A', replies: { totalItems: 2 } }, { name: '' }, 'junk', { name: 'A' }, { name: 'B', replies: { totalItems: -1 } }],
      votersCount: 3,
      endTime: '2030-01-01T00:10:00Z',
    })!;
    expect(poll).toEqual({
      kind: 'anyOf',
      options: [
        { name: 'A', votes: 2 },
        { name: 'B', votes: null },
      ],
      votersCount: 3,
      endTime: '2030-01-01T00:10:00.000Z',
      closed: null,
      hideTotals: false,
    });
  });

  it('reads the list that has the options: an empty oneOf beside anyOf, and a lone option not in a list (compacted JSON-LD)', () => {
    const both = pollOf({ type: 'Question', oneOf: [], anyOf: [{ name: 'A' }, { name: 'B' }] })!;
    expect(both).toMatchObject({ kind: 'anyOf', options: [{ name: 'A' }, { name: 'B' }] });
    expect(pollOf({ type: 'Question', oneOf: { type: 'Note', name: 'Only' } })).toMatchObject({ kind: 'oneOf', options: [{ name: 'Only', votes: null }] });
    expect(pollOf({ type: 'Question', oneOf: [], anyOf: [] })).toBeNull();
  });

  it('a Question without options, or with an unreadable end, is not (or not timed as) a poll', () => {
    expect(pollOf({ type: 'Question', content: 'Open question?' })).toBeNull();
    expect(pollOf({ type: 'Question', oneOf: [{ name: 'x' }], endTime: 'soon' })!.endTime).toBeNull();
  });

  it('is closed once `closed` is set or the end has passed', () => {
    expect(isClosed({ closed: null, endTime: '2030-01-01T00:00:01.000Z' }, NOW)).toBe(false);
    expect(isClosed({ closed: null, endTime: NOW.toISOString() }, NOW)).toBe(true);
    expect(isClosed({ closed: '2029-01-01T00:00:00Z', endTime: '2031-01-01T00:00:00Z' }, NOW)).toBe(true);
    expect(pollOf({ oneOf: [{ name: 'x' }], closed: true, endTime: '2029-01-01T00:00:00Z' })!.closed).toBe('2029-01-01T00:00:00Z');
  });
});

describe('whether an Update asks another question', () => {
  const options = (...names: string[]) => names.map((name, i) => ({ type: 'Note', name, replies: { type: 'Collection', totalItems: i } }));
  const asked: Json = { type: 'Question', oneOf: options('Tea', 'Coffee') };

  it('other option names, or another kind, are another question; new tallies alone are not', () => {
    expect(pollChanged(asked, { type: 'Question', oneOf: options('Tea', 'Water') })).toBe(true);
    expect(pollChanged(asked, { type: 'Question', anyOf: options('Tea', 'Coffee') })).toBe(true);
    expect(pollChanged(asked, { type: 'Question', oneOf: options('Tea', 'Coffee').reverse(), votersCount: 3 })).toBe(true);
    expect(pollChanged(asked, { type: 'Question', oneOf: options('Tea', 'Coffee').map((o) => ({ ...o, replies: { type: 'Collection', totalItems: 9 } })) })).toBe(false);
  });

  it('a Question that lists no options (a partial Update, a closing one) is not', () => {
    expect(pollChanged(asked, { type: 'Question', closed: '2030-01-01T00:00:00Z' })).toBe(false);
    expect(pollChanged(asked, { type: 'Question', oneOf: [], anyOf: [] })).toBe(false);
    expect(pollChanged(asked, { type: 'Question', oneOf: [{ type: 'Note' }] })).toBe(false);
  });

  it('a poll taken away, or a poll put where there was none, is: a choice in the old one is none in the new', () => {
    const note: Json = { type: 'Note', content: '<p>No poll now</p>' };
    expect(pollChanged(asked, note)).toBe(true);
    expect(pollChanged(note, asked)).toBe(true);
    expect(pollChanged({ type: 'Question' }, asked)).toBe(true);
    expect(pollChanged(note, { ...note, content: '<p>Still none</p>' })).toBe(false);
  });

  it('a Question that lists no options keeps the stored ones; one with options, or a Note (the poll taken away), is kept as sent', () => {
    const closing: Json = { type: 'Question', closed: '2030-01-01T00:00:00Z', votersCount: 3 };
    expect(withStoredOptions(asked, closing)).toEqual({ ...closing, oneOf: asked.oneOf });
    expect(withStoredOptions(asked, { ...closing, oneOf: [], anyOf: [] })).toEqual({ ...closing, oneOf: asked.oneOf });
    const asking: Json = { type: 'Question', anyOf: options('Tea', 'Water') };
    expect(withStoredOptions(asked, asking)).toBe(asking);
    const note: Json = { type: 'Note', content: 'No poll after all' };
    expect(withStoredOptions(asked, note)).toBe(note);
  });
});

describe('tallies and what is published', () => {
  it('withTallies writes each option’s count and votersCount; the signature follows them', () => {
    const fresh = { content: 'q', ...questionFields(spec, NOW) } as Json;
    expect(fresh.endTime).toBe('2030-01-01T00:10:00.000Z');
    const counted = withTallies(fresh, { votersCount: 2, byOption: new Map([['Coffee', 2]]) });
    expect(pollOf(counted)!.options).toEqual([
      { name: 'Tea', votes: 0 },
      { name: 'Coffee', votes: 2 },
    ]);
    expect(tallySignature(counted)).not.toBe(tallySignature(fresh));
    expect(tallySignature(withTallies(counted, { votersCount: 2, byOption: new Map([['Coffee', 2]]) }))).toBe(tallySignature(counted));
  });

  it('hidden totals: options lose their counts and the flag is dropped until closed; other objects pass untouched', () => {
    const counted = withTallies(questionFields(spec, NOW) as Json, { votersCount: 1, byOption: new Map([['Tea', 1]]) });
    expect(counted[HIDE_TOTALS_KEY]).toBe(true);
    const open = publishedQuestion(counted);
    expect(open).toMatchObject({ votersCount: 1, oneOf: [{ type: 'Note', name: 'Tea' }, { type: 'Note', name: 'Coffee' }] });
    expect((open.oneOf as Json[]).some((o) => 'replies' in o)).toBe(false);
    expect(HIDE_TOTALS_KEY in open).toBe(false);
    const closed = publishedQuestion({ ...counted, closed: '2030-01-01T00:10:00.000Z' });
    expect((closed.oneOf as Json[]).map((o) => (o.replies as Json).totalItems)).toEqual([1, 0]);
    expect(HIDE_TOTALS_KEY in closed).toBe(false);
    const update = publishedForm({ type: 'Update', object: counted });
    expect(((update.object as Json).oneOf as Json[]).some((o) => 'replies' in o)).toBe(false);
    const note = { type: 'Note', content: 'x' };
    expect(publishedForm(note)).toBe(note);
  });
});

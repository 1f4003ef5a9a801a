// The search language: every operator parsed into the typed query, mistakes refused with a
// sentence, and what reaches FTS5's MATCH always quoted (match.ts).
import { describe, expect, it } from 'vitest';
import { parseQuery, QuerySyntaxError, type SearchQuery } from './query';
import { postMatch, termsMatch, type ResolvedFrom } from './match';
import { openSqlite } from '../../../db/client';

const q = (text: string) => parseQuery(text);
const error = (text: string) => {
  try {
    parseQuery(text);
  } catch (e) {
    expect(e).toBeInstanceOf(QuerySyntaxError);
    return (e as Error).message;
  }
  throw new Error(`parsed without error: ${text}`);
};

describe('parseQuery', () => {
  it('words and "phrases", in order, with - to leave one out', () => {
    expect(q('  kingfisher  "by the canal" -heron -"grey heron" ').terms).toEqual([
      { kind: 'word', text: 'kingfisher', negated: false },
      { kind: 'phrase', text: 'by the canal', negated: false },
      { kind: 'word', text: 'heron', negated: true },
      { kind: 'phrase', text: 'grey heron', negated: true },
    ]);
  });

  it('from: a handle (with or without the leading @, host lower-cased) or me', () => {
    expect(q('from:@Ana@Example.Social').filters).toEqual([{ kind: 'from', handle: '@Ana@example.social', negated: false }]);
    expect(q('from:ana@example.social').filters).toEqual([{ kind: 'from', handle: '@ana@example.social', negated: false }]);
    expect(q('from:me').filters).toEqual([{ kind: 'from', handle: 'me', negated: false }]);
    expect(q('-from:@bot@x.example').filters).toEqual([{ kind: 'from', handle: '@bot@x.example', negated: true }]);
  });

  it('has:media, has:poll, is:reply, is:mine (any case), negated with -', () => {
    expect(q('has:media HAS:Poll is:reply -is:mine').filters).toEqual([
      { kind: 'has', what: 'media', negated: false },
      { kind: 'has', what: 'poll', negated: false },
      { kind: 'is', what: 'reply', negated: false },
      { kind: 'is', what: 'mine', negated: true },
    ]);
  });

  it('visibility: public, unlisted, followers (or private), direct', () => {
    expect(q('visibility:public visibility:unlisted visibility:followers visibility:private visibility:direct').filters.map((f) => (f.kind === 'visibility' ? f.visibility : null))).toEqual([
      'PUBLIC',
      'UNLISTED',
      'FOLLOWERS_ONLY',
      'FOLLOWERS_ONLY',
      'DIRECT',
    ]);
  });

  it('before:, after: and during: dates; the narrowest of several wins', () => {
    const r = q('x before:2024-05-01 after:2024-01-31 before:2024-06-01 after:2023-01-01');
    expect(r.before).toEqual({ year: 2024, month: 5, day: 1 });
    expect(r.after).toEqual({ year: 2024, month: 1, day: 31 });
    const d = q('x during:2024-03-01');
    expect(d.before).toEqual({ year: 2024, month: 3, day: 2 });
    expect(d.after).toEqual({ year: 2024, month: 2, day: 29 });
  });

  it('an unknown prefix is a word (a URL, "note:"); punctuation alone is no word', () => {
    expect(q('note:this https://example.com/a').terms.map((t) => t.text)).toEqual(['note:this', 'https://example.com/a']);
    expect(q('!!! tern').terms.map((t) => t.text)).toEqual(['tern']);
  });

  it('bad syntax: a sentence naming what to write instead', () => {
    expect(error('"unclosed phrase')).toMatch(/quotation mark is not closed/);
    expect(error('wo"rd')).toMatch(/quotation mark inside/);
    expect(error('has:video')).toBe('has: takes media or poll, not “video”.');
    expect(error('is:boost')).toBe('is: takes reply or mine, not “boost”.');
    expect(error('visibility:secret')).toMatch(/public, unlisted, followers or direct/);
    expect(error('from:ana')).toMatch(/from: takes someone’s address/);
    expect(error('from:')).toBe('from: needs a value, for example from:@ana@example.social.');
    expect(error('before:2024-13-01')).toMatch(/before: takes a date as YYYY-MM-DD/);
    expect(error('after:2024-02-30')).toMatch(/after: takes a date/);
    expect(error('after:yesterday')).toMatch(/after: takes a date/);
    expect(error('x before:2024-01-01 after:2024-01-01')).toMatch(/No day is both before 2024-01-01 and after 2024-01-01/);
    expect(error('-before:2024-01-01')).toMatch(/cannot be negated/);
    expect(error('-cats -dogs')).toMatch(/not only what to leave out/);
  });
});

describe('what reaches MATCH', () => {
  const noOne = (): ResolvedFrom => ({ me: false, actorIds: [] });
  const match = (query: SearchQuery, resolve: (handle: string) => ResolvedFrom = noOne) => postMatch(query, resolve, (d) => Date.UTC(d.year, d.month - 1, d.day));

  it('user text is always a quoted string: FTS5 operators, columns and quotes typed are only words', () => {
    expect(match(q('NEAR(a b) OR body:x ^start "a AND b"')).match).toBe('{body} : ("NEAR(a" AND "b)" AND "OR" AND "body:x" AND "^start" AND "a AND b")');
    // Whatever is typed, SQLite's FTS5 accepts the expression (no syntax error reaches the user).
    const sqlite = openSqlite(':memory:');
    sqlite.exec("CREATE VIRTUAL TABLE t USING fts5(body, facets); INSERT INTO t VALUES ('near a b or', 'vpublic')");
    for (const text of ['NEAR(a b)', 'a OR', 'AND', '(((', 'body:x', '{facets}:x', '* ^', "it's", 'x -y*', 'a - b', '"NOT"', 'übung ß 東京']) {
      const m = match(q(text)).match!;
      expect(() => sqlite.prepare('SELECT rowid FROM t WHERE t MATCH ?').all(m), text).not.toThrow();
    }
    expect(sqlite.prepare('SELECT count(*) FROM t WHERE t MATCH ?').pluck().get(match(q('NEAR(a b)')).match)).toBe(1);
    sqlite.close();
  });

  it('filters are facet words; same-kind filters are alternatives; negations are NOT', () => {
    const resolve = (h: string): ResolvedFrom => (h === 'me' ? { me: true } : { me: false, actorIds: h.startsWith('@ana') ? [7, 9] : [12] });
    expect(match(q('tern has:media from:@ana@a.example from:@bo@b.example -is:reply'), resolve).match).toBe(
      '{body} : ("tern") AND {facets} : ("hmedia") AND {facets} : ("a7" OR "a9" OR "a12") NOT {facets} : ("ireply")',
    );
    expect(match(q('visibility:public visibility:direct')).match).toBe('{facets} : ("vpublic" OR "vdirect")');
    expect(match(q('from:me'), resolve).match).toBe('{facets} : ("imine")');
  });

  it('the parts of a query that bound its matches: each positive word and filter group, when there is more than one part', () => {
    const resolve = (): ResolvedFrom => ({ me: false, actorIds: [7] });
    const m = match(q('tern "grey heron" kingf* -gull has:media from:@ana@a.example -is:reply'), resolve);
    expect(m.words).toBe('{body} : ("tern" AND "grey heron" AND "kingf" *)');
    expect(m.parts).toEqual(['{facets} : ("a7")', '{facets} : ("hmedia")', '{body} : "tern"']);
    // One part (or none) bounds nothing more than the match itself.
    expect(match(q('tern -gull -has:media')).parts).toEqual([]);
    expect(match(q('has:media')).parts).toEqual([]);
    expect(match(q('"grey heron" has:media')).parts).toEqual(['{facets} : ("hmedia")']);
    expect(match(q('has:media')).words).toBeNull();
  });

  it('from: someone unknown matches nothing; only negations match every post but those', () => {
    expect(match(q('tern from:@nobody@x.example')).match).toBeNull();
    expect(match(q('-has:media')).match).toBe('{facets} : ("vpublic" OR "vunlisted" OR "vfollowers" OR "vdirect") NOT {facets} : ("hmedia")');
  });

  it('dates are rowid bounds: after the end of after:, before the start of before:', () => {
    const m = match(q('x after:2024-01-01 before:2024-02-01'));
    expect(m.low).toBe((Date.UTC(2024, 0, 2) / 1000) * 2 ** 20);
    expect(m.high).toBe((Date.UTC(2024, 1, 1) / 1000) * 2 ** 20);
  });

  it('word* is a prefix; people and webmentions take the words alone', () => {
    expect(match(q('kingf*')).match).toBe('{body} : ("kingf" *)');
    expect(termsMatch(q('ana -bot has:media').terms)).toBe('"ana" NOT "bot"');
    expect(termsMatch(q('has:media').terms)).toBeNull();
  });
});

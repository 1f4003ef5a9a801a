// parseBoundedJson: the depth bound (strings and escapes do not count), and the edges that use it
// refuse deep JSON with a 400 and a reason instead of failing later in SQLite (a 500).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JsonTooDeepError, MAX_JSON_DEPTH, jsonDepth, openerCount, parseBoundedJson } from './bounded-json';
import { incomingCount, openListeningCore, refused, send, startMallory, type ListeningCore, type Mallory } from '../listener/test-support';

const nested = (depth: number, open = '[', close = ']') => open.repeat(depth) + close.repeat(depth);

describe('jsonDepth and parseBoundedJson', () => {
  it('measure arrays and objects, not brackets inside strings or escaped quotes', () => {
    expect(jsonDepth('{"a":[1,{"b":[]}]}')).toBe(4);
    expect(jsonDepth('"[[[[[[[[["')).toBe(0);
    expect(jsonDepth('{"a":"\\"[[[[[","b":[]}')).toBe(2);
    expect(jsonDepth('1')).toBe(0);
  });

  it(`accept ${MAX_JSON_DEPTH} levels and refuse ${MAX_JSON_DEPTH + 1}, before JSON.parse sees them`, () => {
    expect(parseBoundedJson(nested(MAX_JSON_DEPTH))).toBeInstanceOf(Array);
    expect(() => parseBoundedJson(nested(MAX_JSON_DEPTH + 1))).toThrow(JsonTooDeepError);
    // Unbalanced: JSON.parse would say SyntaxError only after reading it all; the bound says why.
    expect(() => parseBoundedJson('['.repeat(100_000))).toThrow('JSON nested deeper than 64 levels');
    expect(() => parseBoundedJson('{"a":')).toThrow(SyntaxError);
  });

  it('skip the pass when the text holds no more openers than the bound, and only then', () => {
    expect(openerCount('{"a":[1,{"b":"[x{"}]}', 64)).toBe(5);
    expect(openerCount('['.repeat(1_000), 64)).toBe(65); // stops counting past the bound
    // Past the bound in all, but shallow (openers side by side, or inside strings): the pass
    // decides, and lets them through.
    const wide = `[${Array.from({ length: 200 }, () => '{"a":[]}').join(',')}]`;
    expect(openerCount(wide, MAX_JSON_DEPTH)).toBeGreaterThan(MAX_JSON_DEPTH);
    expect(parseBoundedJson(wide)).toHaveLength(200);
    expect(parseBoundedJson(JSON.stringify({ content: '{['.repeat(500) }))).toEqual({ content: '{['.repeat(500) });
    // Exactly at the bound with nothing else: the count alone lets it through; one more, refused.
    expect(parseBoundedJson(nested(MAX_JSON_DEPTH, '{"a":', '}').replace('{"a":}', '{"a":1}'))).toBeTypeOf('object');
    expect(() => parseBoundedJson(`{"x":[1],"y":${nested(MAX_JSON_DEPTH)}}`)).toThrow(JsonTooDeepError);
  });
});

describe('the listener refuses deep JSON at the edge', () => {
  let t: ListeningCore;
  let mallory: Mallory;
  beforeAll(async () => {
    [t, mallory] = await Promise.all([openListeningCore(), startMallory()]);
  });
  afterAll(async () => {
    await mallory?.server.close();
    await t?.close();
  });

  it('a signed activity nested 10,000 levels deep: 400 with the reason, no row (was: 500 from the CHECK)', async () => {
    const deep = `{"@context":"https://www.w3.org/ns/activitystreams","id":"${mallory.actorId}/a/1","type":"Create","actor":"${mallory.actorId}","object":{"type":"Note","id":"${mallory.actorId}/n/1","content":${nested(10_000)}}}`;
    const before = incomingCount(t.core);
    const answer = await refused(t.core, send(await mallory.sign(`${t.url}/inbox`, deep)));
    expect(answer).toEqual({ status: 400, error: 'body is JSON nested deeper than 64 levels' });
    expect(incomingCount(t.core)).toBe(before);
  });

  it('a /register JSON body nested 5,000 levels deep (under its 16 KiB cap): 400 with the reason', async () => {
    const res = await fetch(`${t.url}/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: `{"client_name":"x","redirect_uris":${nested(5_000)}}` });
    expect(res.status).toBe(400);
    expect(JSON.stringify(await res.json())).toContain('nested deeper than 64 levels');
  });
});

// Hostile corpus, what a fuzzer found on the listener: every route sent odd headers, framings,
// percent-encodings, methods and bodies; each case here is one input that misbehaved (a 500, no
// answer, a 2xx for garbage) before its fix, checked with the corpus's rules.
import { afterAll, beforeAll, describe, it } from 'vitest';
import { openListeningCore, type ListeningCore } from '../../electron/core/listener/test-support';
import { issueToken } from '../../electron/core/indieauth/test-flow';
import { reportStalls, runCase } from './rig';
import { rawHttp } from './peers';

let t: ListeningCore;
let port: number;
let token: string;

beforeAll(async () => {
  t = await openListeningCore();
  port = Number(new URL(t.url).port);
  token = await issueToken(t.url, t.core, ['read', 'write']);
});
afterAll(async () => {
  await t?.close();
  reportStalls('fuzz-findings');
});

const h = { sqlite: () => t.core.sqlite };
/** A request line as sent, for what fetch would normalise (a lone %, bytes that are not UTF-8). */
const raw = (line: string, headers: string[] = [], body: string[] = []) => () =>
  rawHttp(port, [line, `Host: 127.0.0.1:${port}`, 'Connection: close', `Authorization: Bearer ${token}`, ...headers].join('\r\n'), body);

describe('a hashtag timeline named with odd percent-encoding', () => {
  // Hono decodes the tag once; the route decoded it again, and threw on what was left.
  const tags: [string, string][] = [
    ['a lone %', '%'],
    ['an encoded % (%25)', '%25'],
    ['%ff (not UTF-8)', 'x%ff'],
    ['an overlong / (%c0%af)', '%c0%af'],
    ['a lone surrogate (%ed%a0%80)', '%ed%a0%80'],
    ['%zz', '%zz'],
  ];
  it.each(tags)('%s is a tag nobody used: an empty page, not a 500', (name, tag) =>
    runCase(h, { name: `tag ${name}`, send: raw(`GET /api/v1/timelines/tag/${tag} HTTP/1.1`), status: 200, reason: /^\[\]$/ }),
  );
});

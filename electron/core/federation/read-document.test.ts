// Documents the author's look-ups fetch are parsed and sanitized off the main thread when large
// (read-document.ts): a 1 MiB post of 16 languages of markup held the main thread 200–300 ms.
// sanitize-html is replaced on this thread by one that refuses texts over 4 KiB, so a large
// document sanitized here instead of on the page reader's worker fails the look-up; small ones
// (every other test's) are still read here, by the real sanitize-html.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Json } from './ap';
import { startSoftwareServer, type SoftwareServer } from './process/software-servers';
import { openRig, type Rig } from './process/test-rig';
import { READ_INLINE_CHARS } from './read-document';
import { MAX_DOCUMENT_CHARS, readDocumentHere } from './document-reading';
import { stopSourceReader } from '../webmention/source-parse';
import { findActor } from './actors';

vi.mock('sanitize-html', async (importOriginal) => {
  const real = (await importOriginal<{ default: (html: string, options?: object) => string }>()).default;
  const guarded = (html: string, options?: object) => {
    if (html.length > 4096) throw new Error('sanitize-html ran on the main thread over a large text');
    return real(html, options);
  };
  return { default: Object.assign(guarded, real) };
});

let peer: SoftwareServer;
let rig: Rig;
beforeAll(async () => {
  peer = await startSoftwareServer();
});
afterAll(async () => {
  await peer.server.close();
  await stopSourceReader();
});
afterEach(() => rig?.close());

/** About `chars` of hostile markup: links to be given their rel, scripts, handlers. */
function markup(chars: number, word: string): string {
  let html = '';
  for (let k = 0; html.length < chars; k++) {
    html += `<p>${word} ${k} <a href="https://a.example/${k}" onclick="steal()">link</a><script>steal(${k})</script></p>`;
  }
  return html;
}

const lookup = (q: string) => rig.core.services.author.lookup(q);
let n = 0;

describe('large fetched documents are read on the page reader’s worker', () => {
  it('a post of 8 languages of 8 KB of markup: found, every language sanitized there', async () => {
    rig = await openRig();
    const author = peer.actor(`/users/a${++n}`, 'Person', `a${n}`);
    const id = `${peer.origin}/notes/${n}`;
    const contentMap = Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`l${i}`, markup(8_000, `lang${i}`)]));
    const doc: Json = { id, type: 'Note', attributedTo: author, content: contentMap.l0, contentMap, published: '2025-01-10T10:00:00Z', to: ['https://www.w3.org/ns/activitystreams#Public'] };
    expect(JSON.stringify(doc).length).toBeGreaterThan(READ_INLINE_CHARS);
    peer.put(id, doc);

    const found = await lookup(id);
    expect(found).toMatchObject({ kind: 'post', post: { apId: id, author: { apId: author } } });
    const stored = rig.inboxRow(id)!.apObject as Json;
    const languages = Object.values(stored.contentMap as Record<string, string>);
    expect(languages).toHaveLength(8);
    for (const html of [stored.content as string, ...languages]) {
      expect(html).not.toMatch(/<script|onclick|steal\(/);
      expect(html).toContain('rel="nofollow noopener noreferrer"');
    }
    expect(languages[3]).toContain('lang3 0 ');
  });

  it('an actor with 6 profile fields of 8 KB of markup: found, its fields sanitized there', async () => {
    rig = await openRig();
    const attachment = Array.from({ length: 6 }, (_, i) => ({ type: 'PropertyValue', name: `<b>field ${i}</b>`, value: markup(8_000, `field${i}`) }));
    const id = peer.actor(`/users/f${++n}`, 'Person', `f${n}`, { summary: markup(3_000, 'bio'), attachment });

    const found = await lookup(id);
    expect(found).toMatchObject({ kind: 'actor' });
    const stored = findActor(rig.core.db, id)!.apActor as Json;
    const fields = stored.attachment as Array<{ name: string; value: string }>;
    expect(fields.map((f) => f.name)).toEqual(['field 0', 'field 1', 'field 2', 'field 3', 'field 4', 'field 5']);
    for (const { value } of fields) {
      expect(value).not.toMatch(/<script|onclick|steal\(/);
      expect(value).toContain('rel="nofollow noopener noreferrer"');
    }
    expect(stored.summary).not.toMatch(/<script|onclick/);
  });

  it('a document larger than Tern keeps once sanitized is refused there, saying why, and nothing is stored', async () => {
    rig = await openRig();
    const huge = `${peer.origin}/notes/huge${++n}`;
    const tag = Array.from({ length: 4_000 }, (_, i) => ({ type: 'Mention', href: `${peer.origin}/users/u${i}`, name: `@u${i}-${'x'.repeat(60)}` }));
    peer.put(huge, { id: huge, type: 'Note', attributedTo: `${peer.origin}/users/a1`, content: '<p>hi</p>', tag });
    await expect(lookup(huge)).rejects.toThrow(new RegExp(`${huge} is larger than Tern keeps \\(\\d+ characters of JSON, at most ${MAX_DOCUMENT_CHARS}\\)`));
    expect(rig.inboxRow(huge)).toBeUndefined();
  });
});

describe('readDocumentHere (what the worker runs)', () => {
  it('answers a reason for text that is not JSON, not an object, or too deep', () => {
    expect(readDocumentHere('{"id": "https://a.example/1", ', 1_000)).toEqual({ ok: false, reason: 'did not answer with usable JSON (not valid JSON)', retryable: true });
    expect(readDocumentHere('[1, 2]', 1_000)).toEqual({ ok: false, reason: 'did not answer with a JSON object', retryable: false });
    expect(readDocumentHere(`${'['.repeat(5_000)}${']'.repeat(5_000)}`, 1_000_000)).toMatchObject({ ok: false, retryable: true, reason: expect.stringMatching(/usable JSON \(.*deep/) });
  });

  it('sanitizes a Create and the object it embeds', () => {
    const reading = readDocumentHere(JSON.stringify({ id: 'https://a.example/c', type: 'Create', object: { id: 'https://a.example/n', type: 'Note', content: '<p>x<script>y()</script></p>', name: '<i>t</i>' } }), 10_000);
    expect(reading).toMatchObject({ ok: true, doc: { object: { content: '<p>x</p>', name: 't' } } });
  });
});

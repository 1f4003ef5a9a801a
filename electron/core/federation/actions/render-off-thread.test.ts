// Long posts are read and rendered on the page reader's worker (render-off-thread.ts): a post
// may be 100,000 characters, sent by a Micropub client or a Mastodon app to the listener on the
// main thread, and lexing one took marked 80–140 ms there. marked is replaced on this thread by
// one that refuses to lex more than 16 KiB: a long post read or rendered here instead of on the
// worker fails; short ones are still rendered here, by the real marked.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { actor, outbox, outgoingActivity } from '../../../../db/schema';
import { manualSource } from '../../connectivity/watch';
import { openCore, type Core } from '../../core';
import { stopSourceReader } from '../../webmention/source-parse';
import { RENDER_INLINE_CHARS } from './render-off-thread';

vi.mock('marked', async (importOriginal) => {
  const real = await importOriginal<typeof import('marked')>();
  class GuardedMarked extends real.Marked {
    override lexer(src: string, options?: import('marked').MarkedOptions) {
      if (src.length > 16 * 1024) throw new Error('marked lexed a long post on the main thread');
      return super.lexer(src, options);
    }
  }
  return { ...real, Marked: GuardedMarked };
});

let dir: string;
let core: Core;
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tern-render-'));
  core = await openCore({ dataDir: dir, mode: 'headless', allowPrivateAddresses: true });
  core.settings.update({ baseUrl: 'http://127.0.0.1:9', username: 'alice', displayName: 'Alice' });
  core.connectivity.setSource(manualSource(false));
  const now = new Date();
  core.db
    .insert(actor)
    .values({ apId: 'https://far.example/users/zed', apActor: { id: 'https://far.example/users/zed', type: 'Person', inbox: 'https://far.example/users/zed/inbox' } as never, apType: 'Person', handle: '@zed@far.example', createdAt: now, updatedAt: now })
    .run();
});
afterEach(async () => {
  await core.loops.delivery.stop({ graceMs: 0 });
  core.close();
  rmSync(dir, { recursive: true, force: true });
});
afterAll(() => stopSourceReader());

const stored = (id: number) => core.db.select().from(outbox).where(eq(outbox.id, id)).get()!;
const recipients = (id: number) => core.db.select().from(outgoingActivity).where(eq(outgoingActivity.outboxObjectId, id)).all().map((r) => r.recipient);
/** Dense Markdown, `chars` long, with a mention of a cached handle and a hashtag at its end. */
const longPost = (chars: number) => `${'*a* _b_ `c` ~~d~~ <b>raw</b> '.repeat(Math.ceil(chars / 28)).slice(0, chars)}\n\nhi @zed@far.example #Terns`;

describe('long posts are rendered on the page reader’s worker', () => {
  it('posting 40,000 characters: rendered there, the mention linked and addressed, the hashtag tagged, raw HTML shown as text', async () => {
    const source = longPost(40_000);
    expect(source.length).toBeGreaterThan(RENDER_INLINE_CHARS);
    const post = await core.services.author.createPost({ content: source, visibility: 'PUBLIC' });
    const object = stored(post.id).apObject as { content: string; tag: unknown[]; source: { content: string } };
    expect(object.content).toMatch(/^<p><em>a<\/em> <em>b<\/em> <code>c<\/code> <del>d<\/del> &lt;b&gt;raw&lt;\/b&gt;/);
    expect(object.content).toContain('<span class="h-card"><a href="https://far.example/users/zed" class="u-url mention"');
    expect(object.content).toContain('<a href="http://127.0.0.1:9/t/terns" class="mention hashtag"');
    expect(object.tag).toEqual([
      { type: 'Mention', href: 'https://far.example/users/zed', name: '@zed@far.example' },
      { type: 'Hashtag', href: 'http://127.0.0.1:9/t/terns', name: '#Terns' },
    ]);
    expect(object.source.content).toBe(source);
    expect(recipients(post.id)).toEqual(['https://far.example/users/zed/inbox']);
  });

  it('editing a post to 30,000 characters renders the new text there too', async () => {
    const post = await core.services.author.createPost({ content: 'short *first*', visibility: 'PUBLIC' });
    expect((stored(post.id).apObject as { content: string }).content).toBe('<p>short <em>first</em></p>');
    await core.services.author.editPost({ apId: stored(post.id).apId, content: longPost(30_000) });
    const object = stored(post.id).apObject as { content: string; updated?: string };
    expect(object.content).toContain('class="u-url mention"');
    expect(object.content.length).toBeGreaterThan(30_000);
    expect(object.updated).toBeDefined();
  });
});

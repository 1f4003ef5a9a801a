// The author writes quote posts (FEP-044f, Mastodon 4.5) against an independent implementation:
// a real core (SQLite, listener on 127.0.0.1, inbox and delivery loops) and Fedify peers that
// read our quote post and QuoteRequest, answer it (Accept with a QuoteAuthorization they serve,
// or Reject), and read the Update that carries the verified authorization. Tests in a describe
// share their peers and run in order.
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Accept, Create, Note, QuoteRequest, Update } from '@fedify/vocab';
import { inbox, incomingActivity, outbox } from '../../../../db/schema';
import { startPeer, type Peer, type ReceivedActivity } from '../../../../test/peer/peer';
import { createHandlers, dispatch } from '../../ipc/handlers';
import { addPost } from '../../listener/test-support';
import { PUBLIC } from '../ap';
import { openAuthorRig, type AuthorRig } from './test-rig';

let rig: AuthorRig;
let heron: Peer; // approves quotes (Accept + QuoteAuthorization); follows us
let crane: Peer; // rejects them

const ours = (id: string | null | undefined) => id?.replace(/\/+$/, '') === rig.url;
const rawOf = (x: ReceivedActivity) => x.raw as Record<string, unknown> & { object: Record<string, unknown> };
const quoteStateOf = async (apId: string) => (await rig.author.thread(apId)).post.quoteState;
const storedObject = (apId: string) => rig.core.db.select().from(outbox).where(eq(outbox.apId, apId)).get()!.apObject as Record<string, unknown>;

beforeAll(async () => {
  [rig, heron, crane] = await Promise.all([openAuthorRig(), startPeer({ name: 'heron' }), startPeer({ name: 'crane', quoteRequests: 'reject' })]);
  await heron.follow(rig.url);
  await heron.waitFor((x) => x.type === 'Accept' && ours(x.actorId));
});

afterAll(async () => {
  await Promise.all([heron?.close(), crane?.close()]);
  await rig?.close();
});

describe('quoting a remote post', () => {
  let stamp: string;
  let firstQuote: string;

  it('whose policy approves anyone: the Note names it four ways with a RE: link; the QuoteRequest goes to its author', async () => {
    const { noteId } = await heron.createNote({ content: '<p>Herons stand still</p>', quotePolicy: 'public' });
    const post = await rig.author.createPost({ content: 'So true', visibility: 'PUBLIC', quote: noteId });
    firstQuote = post.apId;
    expect(post.quote).toBe(noteId);
    expect(post.quoteState).toBe('approved');
    expect(post.contentHtml).toMatch(new RegExp(`^<p>So true</p><p class="quote-inline">RE: <a href="${noteId}"[^>]*>${noteId}</a></p>$`));
    expect(storedObject(post.apId)).toMatchObject({ quote: noteId, quoteUrl: noteId, quoteUri: noteId, _misskey_quote: noteId });

    // Fedify reads the quote from our Create (the terms are in our context).
    const create = await heron.waitFor((x) => x.type === 'Create' && x.objectId === post.apId, 10_000);
    const note = await (await Create.fromJsonLd(create.raw)).getObject();
    expect(note).toBeInstanceOf(Note);
    expect((note as Note).quoteId?.href).toBe(noteId);

    const request = await heron.waitFor((x) => x.type === 'QuoteRequest' && ours(x.actorId), 10_000);
    expect(request.inbox).toBe('personal');
    expect(request.signer.verifiedBy).toBe('http-signature');
    expect(request.objectId).toBe(noteId);
    const parsed = await QuoteRequest.fromJsonLd(request.raw);
    expect(parsed.instrumentId?.href).toBe(post.apId);
  });

  it('its Accept’s QuoteAuthorization is fetched and checked, set on the Note, and an Update carries it', async () => {
    const update = await heron.waitFor((x) => x.type === 'Update' && ours(x.actorId) && rawOf(x).object.id === firstQuote, 10_000);
    [stamp] = heron.quoteAuthorizations() as [string];
    expect(rawOf(update).object).toMatchObject({ quote: expect.any(String), quoteAuthorization: stamp });
    const note = await (await Update.fromJsonLd(update.raw)).getObject();
    expect((note as Note).quoteAuthorizationId?.href).toBe(stamp);
    expect(storedObject(firstQuote).quoteAuthorization).toBe(stamp);
    // Served with it too.
    const served = (await (await fetch(firstQuote, { headers: { accept: 'application/activity+json' } })).json()) as Record<string, unknown>;
    expect(served.quoteAuthorization).toBe(stamp);
    expect(await quoteStateOf(firstQuote)).toBe('approved');
  });

  it('an edit keeps the quote, its RE: link and its authorization', async () => {
    await rig.author.editPost({ apId: firstQuote, content: 'So very true' });
    const object = storedObject(firstQuote);
    expect(object).toMatchObject({ quote: expect.any(String), quoteAuthorization: stamp });
    expect(String(object.content)).toMatch(/^<p>So very true<\/p><p class="quote-inline">RE: <a href="[^"]+">/);
    expect(await quoteStateOf(firstQuote)).toBe('approved');
  });

  it('whose policy asks the author: pending until the Accept, then approved', async () => {
    const { noteId } = await heron.createNote({ content: '<p>Ask me first</p>', quotePolicy: 'manual' });
    const post = await rig.author.createPost({ content: 'May I?', visibility: 'UNLISTED', quote: noteId });
    expect(post.quoteState).toBe('pending');
    await expect.poll(() => quoteStateOf(post.apId), { timeout: 10_000 }).toBe('approved');
    expect(heron.quoteAuthorizations()).toHaveLength(2);
    expect(storedObject(post.apId).quoteAuthorization).toBe(heron.quoteAuthorizations()[1]);
  });

  it('an Accept whose QuoteAuthorization is about another post approves nothing', async () => {
    heron.answerQuotesWith('ignore');
    try {
      const { noteId } = await heron.createNote({ content: '<p>Careful</p>', quotePolicy: 'manual' });
      const post = await rig.author.createPost({ content: 'Sneaky', visibility: 'PUBLIC', quote: noteId });
      const request = await heron.waitFor((x) => x.type === 'QuoteRequest' && x.objectId === noteId, 10_000);
      // An Accept of this request naming the stamp granted for the first quote.
      const acceptId = heron.newId('accepts');
      await heron.send(new Accept({ id: acceptId, actor: new URL(heron.actorId), object: new URL(request.id!), result: new URL(stamp) }), [rig.url]);
      await expect.poll(() => rig.core.db.select().from(inbox).where(eq(inbox.apId, acceptId.href)).get()?.relatesToOutboxObjectId ?? null, { timeout: 10_000 }).not.toBeNull();
      expect(storedObject(post.apId).quoteAuthorization).toBeUndefined();
      expect(await quoteStateOf(post.apId)).toBe('pending');
    } finally {
      heron.answerQuotesWith('accept');
    }
  });

  it('a followers-only quote post is named in its QuoteRequest by id only: its text is not sent to the quoted author', async () => {
    const { noteId } = await heron.createNote({ content: '<p>Herons fish at dawn</p>', quotePolicy: 'public' });
    const post = await rig.author.createPost({ content: 'For my followers only', visibility: 'FOLLOWERS_ONLY', quote: noteId });
    const request = await heron.waitFor((x) => x.type === 'QuoteRequest' && ours(x.actorId) && x.objectId === noteId, 10_000);
    expect((request.raw as Record<string, unknown>).instrument).toBe(post.apId);
    expect(JSON.stringify(request.raw)).not.toContain('For my followers only');
  });
});

describe('answers that do not count', () => {
  it('an Accept of our QuoteRequest from someone else than the author asked is dropped', async () => {
    heron.answerQuotesWith('ignore');
    try {
      const { noteId } = await heron.createNote({ content: '<p>Mine to decide</p>', quotePolicy: 'manual' });
      const post = await rig.author.createPost({ content: 'Who decides?', visibility: 'PUBLIC', quote: noteId });
      const request = await heron.waitFor((x) => x.type === 'QuoteRequest' && x.objectId === noteId, 10_000);
      const acceptId = crane.newId('accepts');
      await crane.send(new Accept({ id: acceptId, actor: new URL(crane.actorId), object: new URL(request.id!), result: new URL(heron.quoteAuthorizations()[0]!) }), [rig.url]);
      await expect.poll(() => rig.core.db.select().from(incomingActivity).where(eq(incomingActivity.apId, acceptId.href)).get()?.isProcessed ?? false, { timeout: 10_000 }).toBe(true);
      expect(rig.core.db.select().from(inbox).where(eq(inbox.apId, acceptId.href)).get()).toBeUndefined();
      expect(await quoteStateOf(post.apId)).toBe('pending');
    } finally {
      heron.answerQuotesWith('accept');
    }
  });

  it('a QuoteRequest still waiting when its quote post is deleted is not sent', async () => {
    const { noteId } = await heron.createNote({ content: '<p>Later</p>', quotePolicy: 'manual' });
    await rig.author.lookup(noteId); // stored while online: quoted offline
    rig.net.set(false);
    try {
      const post = await rig.author.createPost({ content: 'Never mind', visibility: 'PUBLIC', quote: noteId });
      await rig.author.deletePost(post.apId);
      rig.net.set(true);
      const request = rig.core.db.select().from(outbox).where(eq(outbox.relatesToOutboxObjectId, post.id)).all().find((r) => r.apType === 'QuoteRequest')!;
      await expect.poll(() => rig.rowsOf(request.id)[0]?.error ?? null, { timeout: 10_000 }).toMatch(/quoting post was deleted before its quote request reached/);
      expect(heron.received.some((x) => x.type === 'QuoteRequest' && x.objectId === noteId)).toBe(false);
    } finally {
      rig.net.set(true);
    }
  });
});

describe('a quote its author rejects', () => {
  it('shows as not approved; the post stays, without an authorization', async () => {
    const { noteId } = await crane.createNote({ content: '<p>Not for quoting</p>', quotePolicy: 'manual' });
    const post = await rig.author.createPost({ content: 'Hmm', visibility: 'PUBLIC', quote: noteId });
    expect(post.quoteState).toBe('pending');
    await crane.waitFor((x) => x.type === 'QuoteRequest' && x.objectId === noteId, 10_000);
    await expect.poll(() => quoteStateOf(post.apId), { timeout: 10_000 }).toBe('rejected');
    const view = (await rig.author.thread(post.apId)).post;
    expect(view.deleted).toBe(false);
    expect(view.quote).toBe(noteId);
    expect(storedObject(post.apId).quoteAuthorization).toBeUndefined();
  });
});

describe('what cannot be quoted', () => {
  it('a followers-only post of someone else: refused with a clear error over IPC, nothing written', async () => {
    const { noteId } = await heron.createNote({ content: '<p>Just for friends</p>', to: 'followers' });
    const before = rig.core.db.select().from(outbox).all().length;
    const handlers = createHandlers(rig.core);
    const result = await dispatch(handlers, 'posts.create', { content: 'Look', visibility: 'PUBLIC', quote: noteId });
    expect(result).toEqual({ ok: false, error: { code: 'bad_input', message: 'That is a followers-only post: only public and unlisted posts can be quoted.' } });
    expect(rig.core.db.select().from(outbox).all().length).toBe(before);
  });

  it('a direct post of the author’s own: refused', async () => {
    const mine = addPost(rig.core, { visibility: 'DIRECT', to: [heron.actorId] });
    await expect(rig.author.createPost({ content: 'Me again', visibility: 'PUBLIC', quote: mine.apId })).rejects.toThrow('That is a direct message: only public and unlisted posts can be quoted.');
  });

  it('the quote field is validated as a URL at the IPC edge', async () => {
    const result = await dispatch(createHandlers(rig.core), 'posts.create', { content: 'x', visibility: 'PUBLIC', quote: 'not a url' });
    expect(result).toMatchObject({ ok: false, error: { code: 'bad_input' } });
  });
});

describe('quoting the author’s own post', () => {
  it('is approved at once; no QuoteRequest is sent to anyone', async () => {
    const mine = await rig.author.createPost({ content: 'An older thought', visibility: 'PUBLIC' });
    const post = await rig.author.createPost({ content: 'Still true', visibility: 'PUBLIC', quote: mine.apId });
    expect(post.quoteState).toBe('approved');
    expect(post.quote).toBe(mine.apId);
    expect(rig.core.db.select().from(outbox).where(eq(outbox.relatesToOutboxObjectId, post.id)).all().filter((r) => r.apType === 'QuoteRequest')).toEqual([]);
    expect(storedObject(post.apId).to).toEqual([PUBLIC]);
  });
});

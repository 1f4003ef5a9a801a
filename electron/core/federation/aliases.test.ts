// "Also known as" through the IPC contract on a real listening core: handles and URLs are
// resolved to actor ids (WebFinger and fetches against loopback stand-ins for remote servers),
// published as alsoKnownAs in the actor document the listener serves, and announced to
// followers with an Update; bad entries are refused with a sentence naming them, saving nothing.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { outbox, outgoingActivity } from '../../../db/schema';
import type { IpcResult } from '../ipc/contract';
import { createHandlers, dispatch, type Handlers } from '../ipc/handlers';
import { addFollower, openListeningCore, type ListeningCore } from '../listener/test-support';
import { settingsSchema } from '../settings';
import type { SettingsUpdateResult } from '../settings-service';
import { startRemotes, type Remotes } from './process/test-rig';

let remotes: Remotes;
let tern: ListeningCore;
let handlers: Handlers;

beforeAll(async () => {
  remotes = await startRemotes();
  // zoe's server answers WebFinger for her handle (the stand-in ignores the query string).
  const gts = remotes.servers['gts.example'];
  gts.put(`${gts.server.origin}/.well-known/webfinger`, {
    subject: `acct:zoe@${new URL(gts.server.origin).host}`,
    links: [{ rel: 'self', type: 'application/activity+json', href: zoe() }],
  });
});
afterAll(() => remotes.close());
beforeEach(async () => {
  tern = await openListeningCore();
  handlers = createHandlers(tern.core);
});
afterEach(() => tern.close());

const alice = () => String(remotes.fixture('actors/mastodon-alice.json').id);
const zoe = () => String(remotes.fixture('actors/gotosocial-zoe.json').id);
const zoeHandle = () => `@zoe@${new URL(remotes.servers['gts.example'].server.origin).host}`;
const update = (input: unknown) => dispatch(handlers, 'settings.update', input, () => {}) as Promise<IpcResult<SettingsUpdateResult>>;

async function servedActor(): Promise<Record<string, unknown>> {
  const res = await fetch(tern.url, { headers: { accept: 'application/activity+json' } });
  return (await res.json()) as Record<string, unknown>;
}

describe('Also known as (moving into Tern)', () => {
  it('resolves handles and URLs to actor ids, publishes them as alsoKnownAs, and sends followers an Update', async () => {
    addFollower(tern.core, 'https://remote.example/users/bob');
    const result = await update({ alsoKnownAs: [` ${zoeHandle()} `, alice(), alice()] });
    if (!result.ok) throw new Error(result.error.message);
    expect(result.value.alsoKnownAs).toEqual([zoe(), alice()]);
    expect(tern.core.settings.get().alsoKnownAs).toEqual([zoe(), alice()]);
    expect((await servedActor()).alsoKnownAs).toEqual([zoe(), alice()]);

    expect(result.value.profileUpdate).toMatchObject({ recipients: 1 });
    const row = tern.core.db.select().from(outbox).where(eq(outbox.id, result.value.profileUpdate!.outboxObjectId)).get()!;
    expect(row.apObject).toMatchObject({ type: 'Update', object: { type: 'Person', alsoKnownAs: [zoe(), alice()] } });
    expect(tern.core.db.select().from(outgoingActivity).all().map((d) => d.recipient)).toEqual(['https://remote.example/users/bob/inbox']);

    // Saving the same list again changes nothing and announces nothing.
    const again = await update({ alsoKnownAs: [zoe(), alice()] });
    expect(again).toMatchObject({ ok: true, value: { profileUpdate: null } });
    // An empty list takes alsoKnownAs out of the document.
    expect(await update({ alsoKnownAs: [] })).toMatchObject({ ok: true, value: { alsoKnownAs: [] } });
    expect(await servedActor()).not.toHaveProperty('alsoKnownAs');
  });

  it('refuses an account that cannot be found with a sentence naming it, saving nothing', async () => {
    await update({ alsoKnownAs: [alice()] });
    const origin = remotes.servers['mastodon.example'].server.origin;
    const missing = await update({ alsoKnownAs: [zoe(), `${origin}/users/nobody`] });
    expect(missing).toMatchObject({ ok: false, error: { code: 'bad_input' } });
    if (!missing.ok) expect(missing.error.message).toMatch(new RegExp(`^“${origin}/users/nobody” could not be resolved to an account: .*does not exist`));
    const notHandle = await update({ alsoKnownAs: ['not a handle'] });
    expect(notHandle).toMatchObject({ ok: false, error: { code: 'bad_input', message: expect.stringMatching(/^“not a handle” could not be resolved/) } });
    expect(tern.core.settings.get().alsoKnownAs).toEqual([alice()]);
    expect(tern.core.db.select().from(outbox).where(eq(outbox.apType, 'Update')).all()).toHaveLength(0);
  });

  it.each([
    [{ alsoKnownAs: [''] }, /^alsoKnownAs\.0 must not contain an empty entry\.$/],
    [{ alsoKnownAs: Array.from({ length: 11 }, (_, i) => `@a${i}@x.example`) }, /^alsoKnownAs must list at most 10 accounts\.$/],
    [{ alsoKnownAs: 'https://x.example/u/a' }, /^alsoKnownAs /],
  ])('the contract refuses %j', async (input, message) => {
    expect(await update(input)).toMatchObject({ ok: false, error: { code: 'bad_input', message: expect.stringMatching(message) } });
  });

  it('the stored setting holds actor URLs only, and defaults to none', () => {
    expect(settingsSchema.parse({}).alsoKnownAs).toEqual([]);
    expect(settingsSchema.safeParse({ alsoKnownAs: ['@zoe@gts.example'] }).success).toBe(false);
  });
});

// The Account entity of another's account, as a Mastodon client shows it: its address (acct)
// and username carry no character that would make it read as another's; without a picture it
// has Mastodon's neutral ones, not the author's.
import { describe, expect, it } from 'vitest';
import type { Actor } from '../../../db/schema';
import type { ActorView } from '../ipc/author-contract';
import { createAccounts } from './account-entity';
import type { MapperDeps } from './mapper-deps';

const apId = 'https://evil.example/users/e';
const accountOf = (preferredUsername: string, handle: string | null, extra: Record<string, unknown> = {}) => {
  const row = { id: 5, apId, apActor: { id: apId, type: 'Person', preferredUsername, ...extra }, handle, createdAt: new Date(0) } as unknown as Actor;
  const deps = { local: { id: 'https://me.example', baseUrl: 'https://me.example' }, reads: { actor: () => row } } as unknown as MapperDeps;
  const view: ActorView = { id: 5, apId, name: 'E', handle, iconUrl: null, url: apId };
  return createAccounts(deps, () => ({}) as never).account(view) as { username: string; acct: string; avatar: string; avatar_static: string; header: string; header_static: string };
};

describe('a remote Account', () => {
  it('has no bidi override or other format character in its username and acct (made from the preferredUsername when it has no handle)', () => {
    expect(accountOf('\u202Elaicos.nodotsam', null)).toMatchObject({ username: 'laicos.nodotsam', acct: 'laicos.nodotsam@evil.example' });
    expect(accountOf('gar\u200Bgron', null)).toMatchObject({ username: 'gargron', acct: 'gargron@evil.example' });
  });

  it('without an icon or a banner has Mastodon’s missing.png pictures, served by this Tern, never the author’s /avatar.svg', () => {
    expect(accountOf('e', null)).toMatchObject({
      avatar: 'https://me.example/avatars/original/missing.png',
      avatar_static: 'https://me.example/avatars/original/missing.png',
      header: 'https://me.example/headers/original/missing.png',
      header_static: 'https://me.example/headers/original/missing.png',
    });
    expect(accountOf('e', null, { image: { type: 'Image', url: 'https://evil.example/banner.png' } })).toMatchObject({ header: 'https://evil.example/banner.png' });
  });
});

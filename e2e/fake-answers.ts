// Answers Tern would give, for specs that look at how the renderer shows content it cannot yet
// get from a lone headless Tern (remote posts, boosts, likes from others). Routes one IPC channel
// to a fixed value; every other channel still reaches the real Tern.
import type { Page, Route } from '@playwright/test';
import type { ActorView, PostView } from '../electron/core/ipc/author-contract';
import type { Channel, Output } from '../electron/core/ipc/contract';

export async function answer<C extends Channel>(page: Page, channel: C, value: Output<C> | ((input: unknown) => Output<C>)) {
  await page.route(`**/ipc/${channel}`, (route: Route) => {
    const input: unknown = route.request().postDataJSON();
    const body = typeof value === 'function' ? (value as (input: unknown) => Output<C>)(input) : value;
    return route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify({ ok: true, value: body }) });
  });
}

export function actor(id: number, name: string, handle: string): ActorView {
  const [, user, host] = handle.split('@');
  return { id, apId: `https://${host}/users/${user}`, name, handle, iconUrl: `https://${host}/avatars/${user}.png`, url: `https://${host}/@${user}` };
}

export const ana = actor(1, 'Ana Lima', '@ana@mastodon.example');
export const ben = actor(2, 'Ben Okafor', '@ben@gts.example');
export const chloe = actor(3, 'Chloé Martin', '@chloe@misskey.example');

let nextId = 100;
export function post(author: ActorView, contentHtml: string, extra: Partial<PostView> = {}): PostView {
  const id = nextId++;
  const published = new Date(Date.now() - (extra.id ?? id) * 7 * 60_000).toISOString();
  return {
    origin: 'inbox',
    id,
    apId: `${author.apId.replace('/users/', '/statuses/')}/${id}`,
    url: `${author.url}/${id}`,
    type: 'Note',
    author,
    published,
    updated: null,
    title: null,
    contentHtml,
    summary: null,
    excerpt: null,
    sensitive: false,
    card: false,
    visibility: 'PUBLIC',
    inReplyTo: null,
    attachments: [],
    tags: [],
    counts: { replies: 0, likes: 0, boosts: 0 },
    mine: { own: false, liked: false, boosted: false, bookmarked: false, pinned: false },
    boostedBy: null,
    markdown: null,
    deleted: false,
    poll: null,
    event: null,
    ...extra,
  };
}

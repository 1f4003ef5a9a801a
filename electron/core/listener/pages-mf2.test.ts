// The public pages as IndieWeb tools read them: parsed with microformats-parser (what a
// Webmention receiver or an IndieAuth client would do), and the discovery links and headers.
import { mf2 } from 'microformats-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpClient } from '../net/http-client';
import { discoverEndpoint } from '../webmention/discover';
import { addPost, openListeningCore, type ListeningCore } from './test-support';

let tern: ListeningCore;
beforeAll(async () => {
  tern = await openListeningCore();
});
afterAll(async () => {
  await tern.close();
});

async function get(url: string) {
  const res = await fetch(url, { headers: { accept: 'text/html' } });
  expect(res.status).toBe(200);
  const html = await res.text();
  return { res, html, parsed: mf2(html, { baseUrl: url }) };
}

type Props = Record<string, unknown[]>;
const props = (item: unknown) => (item as { properties: Props }).properties;

describe('public pages carry microformats2 and the IndieWeb links', () => {
  it('the profile is an h-card with u-url, u-photo and p-name; its posts are h-entries', async () => {
    addPost(tern.core, { content: '<p>On the profile</p>' });
    const { parsed } = await get(`${tern.url}/`);
    const card = parsed.items.find((i) => i.type?.includes('h-card'));
    expect(card).toBeDefined();
    expect(props(card).name).toEqual(['Alice Example']);
    expect(props(card).url).toEqual([tern.url]);
    expect(props(card).photo).toEqual([`${tern.url}/avatar.svg`]);
    const feed = parsed.items.find((i) => i.type?.includes('h-feed'));
    expect(JSON.stringify(feed)).toContain('On the profile');
  });

  it('a post is an h-entry with e-content, dt-published, u-url, p-author (h-card) and u-in-reply-to', async () => {
    const post = addPost(tern.core, { content: '<p>A <em>reply</em></p>', inReplyTo: 'https://bob.example/notes/1' });
    const { parsed } = await get(post.apId);
    const entry = parsed.items.find((i) => i.type?.includes('h-entry'));
    const p = props(entry);
    expect(p.content?.[0]).toMatchObject({ html: '<p>A <em>reply</em></p>' });
    expect(p.published?.[0]).toBe(post.apPublishedAt.toISOString());
    expect(p.url).toContain(post.apId);
    expect(p['in-reply-to']).toEqual(['https://bob.example/notes/1']);
    const author = p.author?.[0] as { type: string[]; properties: Props };
    expect(author.type).toEqual(['h-card']);
    expect(author.properties.name).toEqual(['Alice Example']);
    expect(author.properties.url).toEqual([tern.url]);
    expect(author.properties.photo).toEqual([`${tern.url}/avatar.svg`]);
  });

  it.each(['profile', 'post'])('the %s page advertises webmention, indieauth-metadata, authorization, token and micropub', async (which) => {
    const url = which === 'profile' ? `${tern.url}/` : addPost(tern.core).apId;
    const { res, parsed } = await get(url);
    expect(parsed.rels.webmention).toEqual([`${tern.url}/webmention`]);
    expect(parsed.rels['indieauth-metadata']).toEqual([`${tern.url}/.well-known/oauth-authorization-server`]);
    expect(parsed.rels.authorization_endpoint).toEqual([`${tern.url}/auth`]);
    expect(parsed.rels.token_endpoint).toEqual([`${tern.url}/token`]);
    expect(parsed.rels.micropub).toEqual([`${tern.url}/micropub`]);
    const link = res.headers.get('link') ?? '';
    expect(link).toContain(`<${tern.url}/webmention>; rel="webmention"`);
    // Each rel once, whoever adds it (the profile's IndieAuth links come from indieauth-routes).
    for (const rel of ['webmention', 'indieauth-metadata', 'micropub']) expect(link.split(`rel="${rel}"`).length).toBeLessThanOrEqual(2);
  });

  it('Tern’s own discovery finds Tern’s endpoint on a post', async () => {
    const client = createHttpClient({ userAgent: 'Tern-test', allowPrivateAddresses: true });
    try {
      await expect(discoverEndpoint(client, addPost(tern.core).apId)).resolves.toBe(`${tern.url}/webmention`);
    } finally {
      client.close();
    }
  });

  it('the avatar is an SVG of the initials', async () => {
    const res = await fetch(`${tern.url}/avatar.svg`);
    expect(res.headers.get('content-type')).toBe('image/svg+xml');
    expect(await res.text()).toContain('>AE</text>');
  });
});

// The listener's few HTML pages, for people and IndieWeb tools that open the author's URLs in a
// browser: the profile (an h-card, with recent public posts as h-entries), a post (h-entry),
// and the "deleted" and "not found" pages. Plain server-rendered HTML, no scripts; every text
// is escaped and every piece of HTML is sanitized again here, whoever stored it.
import { createHash } from 'node:crypto';
import type { OutboxObject } from '../../../db/schema';
import { sanitizeStoredHtml } from '../federation/sanitize-stored';
import type { LocalActor } from '../federation/identity';
import { withoutTrailingSlashes } from '../trailing-slashes';

const STYLE =
  'body{font:16px/1.5 system-ui,sans-serif;max-width:40em;margin:2em auto;padding:0 1em;color:#222}' +
  'a{color:#2a5db0}.h-entry{border-top:1px solid #ddd;padding:1em 0}.meta{color:#666;font-size:.9em}' +
  'img.u-photo{width:96px;height:96px;border-radius:8px}';

/** Content-Security-Policy of every page: no scripts at all, only this one stylesheet. */
export const PAGE_CSP =
  `default-src 'none'; style-src 'sha256-${createHash('sha256').update(STYLE).digest('base64')}'; ` +
  "img-src 'self' https: data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

export const PAGE_HEADERS: Record<string, string> = {
  'Content-Type': 'text/html; charset=utf-8',
  'Content-Security-Policy': PAGE_CSP,
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'strict-origin-when-cross-origin',
};

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);
}

export interface ProfileView {
  local: LocalActor;
  name: string;
  /** Already HTML (rendered from Markdown and sanitized). */
  summaryHtml: string;
  photoUrl?: string | null;
}

export function page(title: string, head: string, body: string): string {
  return (
    `<!doctype html>\n<html lang="en"><head><meta charset="utf-8">` +
    `<meta name="viewport" content="width=device-width, initial-scale=1">` +
    `<title>${escapeHtml(title)}</title><style>${STYLE}</style>${head}</head>\n<body>\n${body}\n</body></html>\n`
  );
}

const alternate = (href: string) => `<link rel="alternate" type="application/activity+json" href="${escapeHtml(href)}">`;

/** The IndieWeb endpoints, at fixed paths under the base URL (the IndieAuth and Micropub ones
 * are served by the indieweb routes). */
export function indieEndpoints(baseUrl: string) {
  const base = withoutTrailingSlashes(baseUrl);
  return {
    webmention: `${base}/webmention`,
    indieauthMetadata: `${base}/.well-known/oauth-authorization-server`,
    authorization: `${base}/auth`,
    token: `${base}/token`,
    micropub: `${base}/micropub`,
  };
}

/** The `Link` header of the profile and post pages: Webmention discovery reads it before the
 * HTML (§3.1.2). (The profile's IndieAuth and Micropub links are appended by indieauth-routes.) */
export function pageLinkHeader(baseUrl: string): string {
  return `<${indieEndpoints(baseUrl).webmention}>; rel="webmention"`;
}

function indieLinks(baseUrl: string): string {
  const e = indieEndpoints(baseUrl);
  const link = (rel: string, href: string) => `<link rel="${rel}" href="${escapeHtml(href)}">`;
  return (
    link('webmention', e.webmention) +
    link('indieauth-metadata', e.indieauthMetadata) +
    link('authorization_endpoint', e.authorization) +
    link('token_endpoint', e.token) +
    link('micropub', e.micropub)
  );
}

function authorCard(profile: ProfileView): string {
  const { local } = profile;
  const photo = profile.photoUrl ? `<img class="u-photo" hidden src="${escapeHtml(profile.photoUrl)}" alt="">` : '';
  return `<span class="p-author h-card">${photo}<a class="u-url p-name" href="${escapeHtml(local.id)}">${escapeHtml(profile.name)}</a></span>`;
}

function str(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

function entry(profile: ProfileView, row: OutboxObject, standalone: boolean): string {
  const object = row.apObject as Record<string, unknown>;
  const url = row.apId;
  const published = str(object.published) ?? row.apPublishedAt.toISOString();
  const name = str(object.name);
  const summary = str(object.summary);
  const inReplyTo = str(object.inReplyTo) ?? (typeof object.inReplyTo === 'object' && object.inReplyTo !== null ? str((object.inReplyTo as Record<string, unknown>).id) : null);
  const content = sanitizeStoredHtml(str(object.content) ?? '');
  const heading = name && row.apType !== 'Note' ? `<h${standalone ? 1 : 2} class="p-name">${escapeHtml(name)}</h${standalone ? 1 : 2}>` : '';
  return (
    `<article class="h-entry">${heading}` +
    (inReplyTo ? `<p class="meta">In reply to <a class="u-in-reply-to" href="${escapeHtml(inReplyTo)}">${escapeHtml(inReplyTo)}</a></p>` : '') +
    (summary ? `<p class="p-summary"><strong>${escapeHtml(summary)}</strong></p>` : '') +
    `<div class="e-content">${content}</div>` +
    `<p class="meta">${authorCard(profile)} · <a class="u-url u-uid" href="${escapeHtml(url)}">` +
    `<time class="dt-published" datetime="${escapeHtml(published)}">${escapeHtml(published.slice(0, 16).replace('T', ' '))}</time></a></p>` +
    `</article>`
  );
}

/** The profile page at the base URL: the author's h-card and their latest public posts. */
export function profilePage(profile: ProfileView, posts: OutboxObject[]): string {
  const { local } = profile;
  const card =
    `<header class="h-card">` +
    (profile.photoUrl ? `<img class="u-photo" src="${escapeHtml(profile.photoUrl)}" alt="">` : '') +
    `<h1><a class="u-url u-uid p-name" href="${escapeHtml(local.id)}" rel="me">${escapeHtml(profile.name)}</a></h1>` +
    `<p class="meta p-nickname">${escapeHtml(local.handle)}</p>` +
    (profile.summaryHtml ? `<div class="p-note">${profile.summaryHtml}</div>` : '') +
    `</header>`;
  const feed = posts.length === 0 ? '' : `<main class="h-feed">${posts.map((p) => entry(profile, p, false)).join('\n')}</main>`;
  return page(`${profile.name} (${local.handle})`, alternate(local.id) + indieLinks(local.baseUrl), `${card}\n${feed}`);
}

/** A hashtag's page: the author's latest public posts with it. */
export function tagPage(profile: ProfileView, tag: string, posts: OutboxObject[]): string {
  const heading = `<header><h1>#${escapeHtml(tag)}</h1><p class="meta">Posts by ${authorCard(profile)}</p></header>`;
  const feed = posts.length === 0 ? '<main><p>No public post has this tag.</p></main>' : `<main class="h-feed">${posts.map((p) => entry(profile, p, false)).join('\n')}</main>`;
  return page(`#${tag} · ${profile.name}`, indieLinks(profile.local.baseUrl), `${heading}\n${feed}`);
}

/** A post's permalink page. */
export function objectPage(profile: ProfileView, row: OutboxObject): string {
  const object = row.apObject as Record<string, unknown>;
  const title = str(object.name) ?? `${profile.name}: ${row.apType}`;
  return page(title, alternate(row.apId) + indieLinks(profile.local.baseUrl), entry(profile, row, true));
}

export function deletedPage(): string {
  return page('Deleted', '', '<main><h1>Deleted</h1><p>This post was deleted by its author.</p></main>');
}

export function notFoundPage(): string {
  return page('Not found', '', '<main><h1>Not found</h1><p>There is nothing here.</p></main>');
}

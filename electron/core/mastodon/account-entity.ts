// The Account entity: the author's own (from the settings, with counts from the core), and
// another's from the stored actor document (read totally; its HTML sanitized).
import type { ActorView, EmojiView, PeopleLists } from '../ipc/author-contract';
import type { Actor } from '../../../db/schema';
import { asArray, isObject, str, type Json } from '../federation/ap';
import { imageUrlOf } from '../federation/objects';
import { sanitizePlainText } from '../federation/sanitize';
import { contentHtmlOf } from '../federation/actions/content-html';
import { summaryToHtml } from '../federation/profile-html';
import { photoUrlOf } from '../listener/avatar-route';
import { MISSING_AVATAR_PATH, MISSING_HEADER_PATH } from '../listener/missing-images';
import { profileImageUrl } from '../media/profile-images';
import type { MapperDeps } from './mapper-deps';
import { OWN_ACCOUNT_ID } from './ids';

/** Mastodon's CustomEmoji entities for a name's or a post's custom emoji: the picture's own URL
 * (a client loads it itself, as it loads a remote avatar), not offered in a picker. */
export function mastodonEmojis(emojis: readonly EmojiView[] | undefined) {
  return (emojis ?? []).map((e) => ({ shortcode: e.shortcode, url: e.url, static_url: e.url, visible_in_picker: false }));
}

const day = (d: Date | string) => `${new Date(d).toISOString().slice(0, 10)}T00:00:00.000Z`;

export function createAccounts(deps: MapperDeps, peopleNow: () => PeopleLists) {
  const { local } = deps;

  /** `withPrivate`: the author's own view (verify_credentials), whose statuses_count counts the
   * followers-only and direct posts too; anyone else's counts what they may see. */
  function ownAccount(options: { withPrivate?: boolean } = {}) {
    const settings = deps.settings();
    const p = peopleNow();
    const avatar = photoUrlOf(local, settings);
    const header = settings.header ? profileImageUrl(local, 'header', settings.header) : `${local.baseUrl}/avatar.svg`;
    return {
      id: OWN_ACCOUNT_ID,
      username: local.username,
      acct: local.username,
      display_name: settings.displayName || local.username,
      locked: settings.manuallyApprovesFollowers,
      bot: false,
      discoverable: true,
      indexable: true,
      group: false,
      noindex: false,
      created_at: day(settings.actorPublishedAt ?? new Date(0)),
      note: summaryToHtml(settings.summary),
      url: local.id,
      uri: local.id,
      avatar,
      avatar_static: avatar,
      header,
      header_static: header,
      // Counted in SQL: the lists hold a first page (50) of each.
      followers_count: p.counts.followers,
      following_count: p.counts.following,
      statuses_count: deps.reads.ownPostCount(options),
      last_status_at: null,
      hide_collections: false,
      emojis: [],
      fields: [],
      roles: [],
    };
  }

  function remoteAccount(view: ActorView, row: Actor | null) {
    const doc = (row?.apActor ?? {}) as Json;
    // A client shows `acct` as the account's address: no control or format character in it (a
    // bidi override makes \u202Elaicos.nodotsam@evil.example read as elpmaxe.live@mastodon.social;
    // the core keeps no such handle, and this is made from the preferredUsername when it has none).
    const username = (str(doc.preferredUsername) ?? view.handle?.split('@')[1] ?? '').replace(/[\p{Cc}\p{Cf}]/gu, '') || 'unknown';
    const host = (() => {
      try {
        return new URL(view.apId).host;
      } catch {
        return 'unknown';
      }
    })();
    const acct = view.handle ? view.handle.replace(/^@/, '') : `${username}@${host}`;
    // Mastodon's pictures for an account without one (not /avatar.svg: that is the author's).
    const avatar = view.iconUrl ?? `${local.baseUrl}${MISSING_AVATAR_PATH}`;
    const header = imageUrlOf(doc.image) ?? `${local.baseUrl}${MISSING_HEADER_PATH}`;
    const summary = str(doc.summary);
    const fields = asArray(doc.attachment)
      .filter(isObject)
      .filter((a) => a.type === 'PropertyValue' && str(a.name) && str(a.value))
      .slice(0, 10)
      .map((a) => ({ name: sanitizePlainText(str(a.name)!), value: contentHtmlOf(str(a.value)!), verified_at: null }));
    return {
      id: String(view.id),
      username,
      acct,
      display_name: view.name,
      locked: doc.manuallyApprovesFollowers === true,
      bot: doc.type === 'Service' || doc.type === 'Application',
      discoverable: doc.discoverable === true,
      indexable: doc.indexable === true,
      group: doc.type === 'Group',
      noindex: false,
      created_at: day(str(doc.published) && !Number.isNaN(Date.parse(str(doc.published)!)) ? str(doc.published)! : (row?.createdAt ?? new Date(0))),
      // Through the views' sanitizing (kept results, and one budget per turn for a page: a bio
      // and ten field values of 62 KB of markup each took 13.7 ms an account, 0.5–1.2 s for a
      // page of followers, follow notifications or an account search).
      note: summary ? contentHtmlOf(summary) : '',
      url: view.url,
      uri: view.apId,
      avatar,
      avatar_static: avatar,
      header,
      header_static: header,
      followers_count: 0,
      following_count: 0,
      statuses_count: 0,
      last_status_at: null,
      hide_collections: false,
      emojis: mastodonEmojis(view.emojis),
      fields,
      roles: [],
    };
  }

  const accountCache = new Map<string, ReturnType<typeof remoteAccount> | ReturnType<typeof ownAccount>>();
  function account(view: ActorView) {
    const cached = accountCache.get(view.apId);
    if (cached) return cached;
    const made = view.id === 0 && view.apId === local.id ? ownAccount() : remoteAccount(view, deps.reads.actor(view.id));
    accountCache.set(view.apId, made);
    return made;
  }

  return { account, ownAccount };
}

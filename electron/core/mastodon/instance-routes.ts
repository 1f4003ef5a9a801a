// What a client reads first and about the server: instance (v1, v2), preferences, and the
// features Tern does not have, answered empty but valid (custom emojis, filters, lists,
// announcements, trends, suggestions, followed tags), so clients carry on.
import type { Hono } from 'hono';
import { TERN_VERSION } from '../version';
import { MAX_ALT_LENGTH, MAX_ATTACHMENTS, MAX_AV_BYTES, MAX_IMAGE_BYTES, MEDIA_TYPES } from '../media/limits';
import { POLL_LIMITS } from '../federation/polls/question';
import type { ListenerCore, ListenerEnv } from '../listener/context';
import type { LocalActor } from '../federation/identity';
import { apiOf } from './api';
import { handler, json, requireToken } from './http';

/** Mastodon's own default; Tern's posts are Markdown and have no real limit below 100,000. */
export const MAX_CHARACTERS = 5000;

function configuration(local: LocalActor) {
  return {
    // No streaming yet: clients that try it fail to connect and refresh by pulling.
    urls: { streaming: local.baseUrl.replace(/^http/, 'ws') },
    accounts: { max_featured_tags: 0, max_pinned_statuses: 20 },
    statuses: { max_characters: MAX_CHARACTERS, max_media_attachments: MAX_ATTACHMENTS, characters_reserved_per_url: 23 },
    media_attachments: {
      supported_mime_types: [...MEDIA_TYPES],
      description_limit: MAX_ALT_LENGTH,
      image_size_limit: MAX_IMAGE_BYTES,
      image_matrix_limit: 50_000_000,
      video_size_limit: MAX_AV_BYTES,
      video_frame_rate_limit: 120,
      video_matrix_limit: 8_294_400,
    },
    polls: { max_options: POLL_LIMITS.maxOptions, max_characters_per_option: POLL_LIMITS.maxOptionChars, min_expiration: POLL_LIMITS.minSeconds, max_expiration: POLL_LIMITS.maxSeconds },
    translation: { enabled: false },
  };
}

export function mountInstanceRoutes(app: Hono<ListenerEnv>, core: ListenerCore): void {
  // Mastodon-compatible version string first: clients read features from it.
  const version = `4.3.0 (compatible; Tern ${TERN_VERSION})`;

  app.get(
    '/api/v2/instance',
    handler((c) => {
      const api = apiOf(core, c);
      const local = c.var.local;
      const settings = core.settings.get();
      return json(c, {
        domain: local.host,
        title: settings.displayName || local.username,
        version,
        source_url: local.baseUrl,
        description: `${settings.displayName || local.username}'s own home on the fediverse (Tern).`,
        usage: { users: { active_month: 1 } },
        thumbnail: { url: `${local.baseUrl}/avatar.svg`, blurhash: null, versions: {} },
        icon: [],
        languages: ['en'],
        configuration: configuration(local),
        registrations: { enabled: false, approval_required: false, message: null, url: null },
        api_versions: { mastodon: 2 },
        contact: { email: '', account: api.map.ownAccount() },
        rules: [],
      });
    }),
  );

  app.get(
    '/api/v1/instance',
    handler((c) => {
      const api = apiOf(core, c);
      const local = c.var.local;
      const settings = core.settings.get();
      return json(c, {
        uri: local.host,
        title: settings.displayName || local.username,
        short_description: 'A Tern: one author’s home on the fediverse.',
        description: `${settings.displayName || local.username}'s own home on the fediverse (Tern).`,
        email: '',
        version,
        urls: { streaming_api: local.baseUrl.replace(/^http/, 'ws') },
        stats: { user_count: 1, status_count: api.author.reads.ownPostCount(), domain_count: 0 },
        thumbnail: `${local.baseUrl}/avatar.svg`,
        languages: ['en'],
        registrations: false,
        approval_required: false,
        invites_enabled: false,
        configuration: configuration(local),
        contact_account: api.map.ownAccount(),
        rules: [],
      });
    }),
  );

  app.get('/api/v1/instance/peers', handler((c) => json(c, [])));
  app.get('/api/v1/instance/activity', handler((c) => json(c, [])));
  app.get('/api/v1/instance/rules', handler((c) => json(c, [])));
  app.get('/api/v1/instance/extended_description', handler((c) => json(c, { updated_at: new Date(0).toISOString(), content: '' })));

  app.get(
    '/api/v1/preferences',
    handler((c) => {
      requireToken(core, c, 'read');
      return json(c, {
        'posting:default:visibility': 'public',
        'posting:default:sensitive': false,
        'posting:default:language': null,
        'reading:expand:media': 'default',
        'reading:expand:spoilers': false,
      });
    }),
  );

  // Features Tern does not have: valid and empty, for a token that may read.
  for (const path of [
    '/api/v1/custom_emojis',
    '/api/v1/filters',
    '/api/v2/filters',
    '/api/v1/lists',
    '/api/v1/announcements',
    '/api/v1/trends',
    '/api/v1/trends/tags',
    '/api/v1/trends/statuses',
    '/api/v1/trends/links',
    '/api/v1/suggestions',
    '/api/v2/suggestions',
    '/api/v1/followed_tags',
    '/api/v1/featured_tags',
    '/api/v1/blocks',
    '/api/v1/mutes',
    '/api/v1/domain_blocks',
    '/api/v1/endorsements',
    '/api/v1/scheduled_statuses',
  ]) {
    app.get(
      path,
      handler((c) => {
        if (path !== '/api/v1/custom_emojis') requireToken(core, c, 'read');
        return json(c, []);
      }),
    );
  }
}

// Statuses: read, post (text, files, poll, content warning, visibility, reply), edit and its
// history and source, delete, the thread around one, and the author's interactions with it
// (favourite, reblog, bookmark, pin, and their undos). Each is one call into the AuthorService
// the desktop's Compose and buttons use; a status's text is Tern's Markdown.
import type { Hono } from 'hono';
import { z } from 'zod';
import type { KeyedPost } from '../federation/actions/reads';
import { authorInputs, type PostView } from '../ipc/author-contract';
import type { ListenerCore, ListenerEnv } from '../listener/context';
import { MAX_ATTACHMENTS } from '../media/limits';
import { POLL_LIMITS } from '../federation/polls/question';
import { apiOf, postById, type Api } from './api';
import { fromVisibility } from './entities';
import { ApiError, bodyParams, bool, handler, idString, int, json, list, notFound, parse, requireToken } from './http';
import type { MediaDescriptions } from './media-routes';

const POST_BODY_BYTES = 256 * 1024;

const pollInput = z.object({
  options: list(z.string().trim().min(1).max(POLL_LIMITS.maxOptionChars), POLL_LIMITS.maxOptions),
  expires_in: int(POLL_LIMITS.minSeconds, POLL_LIMITS.maxSeconds),
  multiple: bool.optional(),
  hide_totals: bool.optional(),
});

const statusInput = z.object({
  status: z.string().max(100_000).optional(),
  media_ids: list(idString, MAX_ATTACHMENTS).optional(),
  poll: pollInput.optional(),
  in_reply_to_id: idString.optional().nullable(),
  sensitive: bool.optional(),
  spoiler_text: z.string().max(2_000).optional(),
  visibility: z.enum(['public', 'unlisted', 'private', 'direct']).optional(),
  language: z.string().max(10).optional().nullable(),
  scheduled_at: z.string().max(100).optional().nullable(),
  /** Mastodon 4.5's quote (quoted_status_id); quote_id is Fedibird's and Akkoma's older name. */
  quoted_status_id: idString.optional().nullable(),
  quote_id: z.string().max(30).optional().nullable(),
  media_attributes: z.unknown().optional(),
});

/** Posts a client sent again with the same Idempotency-Key get the first answer (an hour). */
const IDEMPOTENCY_MS = 60 * 60_000;

export function mountStatusRoutes(app: Hono<ListenerEnv>, core: ListenerCore, descriptions: MediaDescriptions): void {
  const seen = new Map<string, { at: number; id: string }>();
  const keyOf = (view: PostView) => ({ published: new Date(view.published), origin: view.origin, id: view.id });
  const own = (post: KeyedPost) => {
    if (post.view.boostedBy || !post.view.mine.own) throw notFound();
    return post;
  };
  const entity = (api: Api, view: PostView) => api.map.status(view, keyOf(view));

  app.post(
    '/api/v1/statuses',
    handler(async (c) => {
      requireToken(core, c, 'write');
      const api = apiOf(core, c);
      const input = parse(statusInput, await bodyParams(c, POST_BODY_BYTES));
      const idempotency = c.req.header('idempotency-key')?.slice(0, 200);
      const now = Date.now();
      for (const [k, v] of seen) if (now - v.at > IDEMPOTENCY_MS) seen.delete(k);
      if (idempotency && seen.has(idempotency)) return json(c, api.map.status(postById(api, seen.get(idempotency)!.id).view, postById(api, seen.get(idempotency)!.id).key));
      if (input.scheduled_at) throw new ApiError(422, 'Validation failed: Tern does not schedule posts');
      const text = input.status ?? '';
      const mediaIds = input.media_ids ?? [];
      if (text.trim() === '' && mediaIds.length === 0) throw new ApiError(422, "Validation failed: Text can't be blank");
      if (input.poll && mediaIds.length > 0) throw new ApiError(422, 'Validation failed: a poll cannot have files');
      const parent = input.in_reply_to_id ? postById(api, input.in_reply_to_id) : null;
      const quotedId = input.quoted_status_id ?? input.quote_id ?? null;
      const quoted = quotedId ? postById(api, quotedId) : null;
      // The same schema as the desktop's posts.create: one set of rules for a post.
      const post = parse(authorInputs['posts.create'], {
        content: text,
        visibility: fromVisibility(input.visibility ?? 'public'),
        summary: input.spoiler_text?.trim() ? input.spoiler_text.trim() : null,
        sensitive: input.sensitive ?? false,
        inReplyTo: parent ? parent.view.apId : null,
        quote: quoted ? quoted.view.apId : null,
        attachments: mediaIds.map((id) => ({ uploadId: Number(id), alt: descriptions.get(Number(id)) ?? null })),
        poll: input.poll
          ? { options: input.poll.options, multiple: input.poll.multiple ?? false, durationSeconds: input.poll.expires_in, hideTotals: input.poll.hide_totals ?? false }
          : null,
      });
      const created = await api.author.createPost(post);
      for (const id of mediaIds) descriptions.delete(Number(id));
      const status = entity(api, created);
      if (idempotency) seen.set(idempotency, { at: now, id: status.id });
      return json(c, status);
    }),
  );

  app.get(
    '/api/v1/statuses/:id',
    handler((c) => {
      requireToken(core, c, 'read');
      const api = apiOf(core, c);
      const post = postById(api, c.req.param('id') ?? '');
      return json(c, api.map.status(post.view, post.key));
    }),
  );

  app.put(
    '/api/v1/statuses/:id',
    handler(async (c) => {
      requireToken(core, c, 'write');
      const api = apiOf(core, c);
      const post = own(postById(api, c.req.param('id') ?? ''));
      const input = parse(statusInput, await bodyParams(c, POST_BODY_BYTES));
      const current = post.view.attachments.map((a) => api.map.attachment(a, 0, '').id);
      if (input.media_ids && (input.media_ids.length !== current.length || input.media_ids.some((id, i) => id !== current[i]))) {
        throw new ApiError(422, 'Validation failed: Tern cannot change a post’s files; delete it and post it again');
      }
      if (input.poll) throw new ApiError(422, 'Validation failed: Tern cannot change a poll');
      const edit = parse(authorInputs['posts.edit'], {
        apId: post.view.apId,
        content: input.status ?? post.view.markdown ?? '',
        summary: input.spoiler_text === undefined ? post.view.summary : input.spoiler_text.trim() || null,
        ...(input.sensitive === undefined ? {} : { sensitive: input.sensitive }),
      });
      const edited = await api.author.editPost(edit);
      return json(c, entity(api, edited));
    }),
  );

  app.delete(
    '/api/v1/statuses/:id',
    handler(async (c) => {
      requireToken(core, c, 'write');
      await bodyParams(c);
      const api = apiOf(core, c);
      const post = own(postById(api, c.req.param('id') ?? ''));
      const status = { ...api.map.status(post.view, post.key), text: post.view.markdown ?? '' };
      await api.author.deletePost(post.view.apId);
      return json(c, status);
    }),
  );

  app.get(
    '/api/v1/statuses/:id/source',
    handler((c) => {
      requireToken(core, c, 'read');
      const api = apiOf(core, c);
      const post = own(postById(api, c.req.param('id') ?? ''));
      return json(c, { id: c.req.param('id') ?? '', text: post.view.markdown ?? '', spoiler_text: post.view.summary ?? '' });
    }),
  );

  app.get(
    '/api/v1/statuses/:id/history',
    handler((c) => {
      requireToken(core, c, 'read');
      const api = apiOf(core, c);
      const post = postById(api, c.req.param('id') ?? '');
      const versions = post.view.mine.own && !post.view.boostedBy ? api.author.reads.history(post.view.id) : [post.view];
      return json(
        c,
        versions.map((v) => {
          const s = api.map.status(v, post.key);
          return { content: s.content, spoiler_text: s.spoiler_text, sensitive: s.sensitive, created_at: v.updated && !Number.isNaN(Date.parse(v.updated)) ? new Date(v.updated).toISOString() : s.created_at, account: s.account, poll: s.poll ? { options: s.poll.options.map((o) => ({ title: o.title })) } : null, media_attachments: s.media_attachments, emojis: [] };
        }),
      );
    }),
  );

  app.get(
    '/api/v1/statuses/:id/context',
    handler(async (c) => {
      requireToken(core, c, 'read');
      const api = apiOf(core, c);
      const post = postById(api, c.req.param('id') ?? '');
      const thread = await api.author.thread(post.view.apId);
      return json(c, { ancestors: thread.ancestors.map((v) => entity(api, v)), descendants: thread.replies.map((v) => entity(api, v)) });
    }),
  );

  for (const who of ['favourited_by', 'reblogged_by']) {
    app.get(
      `/api/v1/statuses/:id/${who}`,
      handler((c) => {
        requireToken(core, c, 'read');
        postById(apiOf(core, c), c.req.param('id') ?? '');
        return json(c, []);
      }),
    );
  }

  const act = (path: string, run: (api: Api, post: KeyedPost) => Promise<PostView | null> | PostView | null) =>
    app.post(
      `/api/v1/statuses/:id/${path}`,
      handler(async (c) => {
        requireToken(core, c, 'write');
        await bodyParams(c);
        const api = apiOf(core, c);
        const post = postById(api, c.req.param('id') ?? '');
        const view = await run(api, post);
        if (view === null) {
          // reblog answers the wrapper status: the author's boost around the boosted post.
          const boost = api.author.reads.ownBoostOf(post.view.apId);
          if (!boost) throw notFound();
          return json(c, apiOf(core, c).map.status(boost.view, boost.key));
        }
        return json(c, apiOf(core, c).map.status(view, keyOf(view)));
      }),
    );
  act('favourite', (api, p) => api.author.like(p.view.apId));
  act('unfavourite', (api, p) => api.author.unlike(p.view.apId));
  act('reblog', async (api, p) => {
    await api.author.boost(p.view.apId);
    return null;
  });
  act('unreblog', (api, p) => api.author.unboost(p.view.apId));
  act('bookmark', (api, p) => api.author.bookmark(p.view.apId, true));
  act('unbookmark', (api, p) => api.author.bookmark(p.view.apId, false));
  act('pin', (api, p) => api.author.setPinned(own(p).view.apId, true));
  act('unpin', (api, p) => api.author.setPinned(own(p).view.apId, false));
  act('mute', (_api, p) => ({ ...p.view, boostedBy: null }));
  act('unmute', (_api, p) => ({ ...p.view, boostedBy: null }));
}


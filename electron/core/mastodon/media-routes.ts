// Files and polls. POST /api/v1/media and /api/v2/media run a file through the same pipeline
// as Compose (type sniffed, EXIF stripped, thumbnail, blurhash, stored once by hash) and answer
// at once (processing is synchronous, so never 202); the alt text a client gives here (or with
// PUT) is kept in the settings file until the post that uses the file, where Tern stores alt text.
// Polls are read through their status and voted in with the PollService the desktop uses.
import type { Hono } from 'hono';
import { z } from 'zod';
import type { ListenerCore, ListenerEnv } from '../listener/context';
import { MAX_ALT_LENGTH, MAX_AV_BYTES } from '../media/limits';
import { UploadedFile } from '../media/uploaded-file';
import { MAX_PENDING_ALT, type SettingsStore } from '../settings';
import { declaredType } from '../micropub/media';
import { apiOf, postById } from './api';
import { ApiError, bodyParams, handler, int, json, list, notFound, parse, requireToken } from './http';

export const MEDIA_BODY_BYTES = MAX_AV_BYTES + 64 * 1024;
/** Alt texts waiting for their post, in the settings file (they survive a restart). */
export interface MediaDescriptions {
  get(uploadId: number): string | undefined;
  set(uploadId: number, text: string): void;
  delete(uploadId: number): void;
}

export function createDescriptions(settings: SettingsStore): MediaDescriptions {
  const pending = () => settings.get().mastodonPendingAlt;
  return {
    get: (id) => pending().find((p) => p.uploadId === id)?.text,
    set(id, text) {
      const others = pending().filter((p) => p.uploadId !== id);
      settings.update({ mastodonPendingAlt: [...others, { uploadId: id, text }].slice(-MAX_PENDING_ALT) });
    },
    delete(id) {
      if (pending().some((p) => p.uploadId === id)) settings.update({ mastodonPendingAlt: pending().filter((p) => p.uploadId !== id) });
    },
  };
}

const uploadForm = z.object({
  file: z.instanceof(UploadedFile, { message: 'is required (a multipart file part named "file")' }),
  description: z.string().max(MAX_ALT_LENGTH).optional(),
  focus: z.string().max(50).optional(),
  thumbnail: z.unknown().optional(),
});
const updateForm = z.object({ description: z.string().max(MAX_ALT_LENGTH).optional(), focus: z.string().max(50).optional(), thumbnail: z.unknown().optional() });

export function mountMediaRoutes(app: Hono<ListenerEnv>, core: ListenerCore, descriptions: MediaDescriptions): void {
  const media = () => {
    const service = core.services?.media;
    if (!service) throw new ApiError(503, 'Uploads are not available on this Tern');
    return service;
  };

  for (const path of ['/api/v1/media', '/api/v2/media']) {
    app.post(
      path,
      handler(async (c) => {
        // The token before the body: a stranger cannot make Tern read 40 MB.
        requireToken(core, c, 'write');
        if (!/^multipart\/form-data\s*(;|$)/i.test(c.req.header('content-type') ?? '')) throw new ApiError(422, 'Validation failed: send multipart/form-data with a file part named "file"');
        const input = parse(uploadForm, await bodyParams(c, MEDIA_BODY_BYTES, true));
        const { upload: row } = await media().store({ file: input.file.pieces, contentType: declaredType(input.file) });
        const description = input.description?.trim() || null;
        if (description) descriptions.set(row.id, description);
        return json(c, apiOf(core, c).map.upload(row, description));
      }),
    );
  }

  const uploadOf = (id: string) => {
    if (!/^\d{1,15}$/.test(id)) throw notFound();
    return id;
  };

  app.get(
    '/api/v1/media/:id',
    handler((c) => {
      requireToken(core, c, 'write');
      const api = apiOf(core, c);
      const row = api.author.reads.upload(Number(uploadOf(c.req.param('id') ?? '')));
      if (!row) throw notFound();
      return json(c, api.map.upload(row, descriptions.get(row.id) ?? null));
    }),
  );

  app.put(
    '/api/v1/media/:id',
    handler(async (c) => {
      requireToken(core, c, 'write');
      const api = apiOf(core, c);
      const row = api.author.reads.upload(Number(uploadOf(c.req.param('id') ?? '')));
      if (!row) throw notFound();
      const input = parse(updateForm, await bodyParams(c, 64 * 1024, true));
      const description = input.description?.trim() || null;
      if (description) descriptions.set(row.id, description);
      else if (input.description !== undefined) descriptions.delete(row.id);
      return json(c, api.map.upload(row, descriptions.get(row.id) ?? null));
    }),
  );

  app.get(
    '/api/v1/polls/:id',
    handler((c) => {
      requireToken(core, c, 'read');
      const api = apiOf(core, c);
      const post = postById(api, c.req.param('id') ?? '');
      const status = api.map.status(post.view, post.key);
      const poll = post.view.boostedBy ? (status.reblog as { poll: unknown }).poll : status.poll;
      if (!poll) throw notFound();
      return json(c, poll);
    }),
  );

  app.post(
    '/api/v1/polls/:id/votes',
    handler(async (c) => {
      requireToken(core, c, 'write');
      const polls = core.services?.polls;
      if (!polls) throw new ApiError(503, 'Polls are not available on this Tern');
      const api = apiOf(core, c);
      const post = postById(api, c.req.param('id') ?? '');
      const options = post.view.poll?.options;
      if (!options) throw notFound();
      const { choices } = parse(z.object({ choices: list(int(0, 99), options.length).refine((l) => l.length > 0, 'must name at least one option') }), await bodyParams(c));
      const names = choices.map((i) => {
        const option = options[i];
        if (!option) throw new ApiError(422, `Validation failed: there is no option ${i}`);
        return option.name;
      });
      const view = polls.vote(post.view.apId, [...new Set(names)]);
      const status = apiOf(core, c).map.status(view, { published: new Date(view.published), origin: view.origin, id: view.id });
      return json(c, status.poll);
    }),
  );
}

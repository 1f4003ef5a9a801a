// The author's settings that are not records of the spec: identity (public base URL, user
// name), profile, listener, delivery switches. One JSON file beside the database, validated
// with zod on every read and write, written atomically (temp file + rename).
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { z } from 'zod';
import { NOTIFICATION_TYPES } from '../../db/columns';
import { BadInputError } from './errors';
import { MAX_ALT_LENGTH } from './media/limits';
import { profileImageSchema } from './media/profile-images';
import { withoutTrailingSlashes } from './trailing-slashes';

export const USERNAME_RE = /^[A-Za-z0-9_]{1,30}$/;
/** How many old accounts the author may list under "Also known as". */
export const MAX_ALIASES = 10;
/** Alt texts kept for uploads awaiting their post (a phone app posts within minutes). */
export const MAX_PENDING_ALT = 50;

/** A public base URL: http(s), no query, no fragment; kept without a trailing slash. */
export const baseUrlSchema = z
  .string()
  .trim()
  // abort: the refinements below parse the URL, which throws on what is not one.
  .url({ message: 'must be a URL such as https://example.com', abort: true })
  .refine((u) => /^https?:$/.test(new URL(u).protocol), { message: 'must be an http(s) URL', abort: true })
  .refine((u) => !new URL(u).search && !new URL(u).hash, 'must have no query or fragment')
  .transform((u) => withoutTrailingSlashes(u));

export const settingsSchema = z.object({
  baseUrl: baseUrlSchema.nullable().default(null),
  username: z.string().regex(USERNAME_RE, 'letters, digits and _ only (1–30)').nullable().default(null),
  displayName: z.string().max(100).default(''),
  /** Markdown; rendered to HTML for the actor's summary. */
  summary: z.string().max(5000).default(''),
  manuallyApprovesFollowers: z.boolean().default(false),
  /** The author's picture and header image (uploads): the actor's icon and image. */
  avatar: profileImageSchema.nullable().default(null),
  header: profileImageSchema.nullable().default(null),
  listener: z
    .object({
      enabled: z.boolean().default(false),
      host: z.string().default('127.0.0.1'),
      port: z.number().int().min(0).max(65535).default(4861),
      /** Honour X-Forwarded-* only when told the listener is behind a proxy (a tunnel). */
      behindProxy: z.boolean().default(false),
    })
    .prefault({}),
  /** The author's tunnel command (run without a shell, see tunnel/), and whether Tern starts it. */
  tunnel: z
    .object({
      command: z.string().max(2000).default(''),
      startWithTern: z.boolean().default(false),
    })
    .prefault({}),
  /** "Work offline": the delivery loop attempts nothing, like a mail client's switch. */
  workOffline: z.boolean().default(false),
  blockedServers: z.array(z.string()).default([]),
  /** Old accounts (actor ids, resolved from what the author typed): the actor's alsoKnownAs. */
  alsoKnownAs: z.array(z.url()).max(MAX_ALIASES).default([]),
  /** OS notifications per notification type; a type not listed is on. */
  osNotifications: z.partialRecord(z.enum(NOTIFICATION_TYPES), z.boolean()).default({}),
  /** When the identity (base URL + user name) was first complete: the actor's `published`. */
  actorPublishedAt: z.iso.datetime({ offset: true }).nullable().default(null),
  /** When the profile last changed: the actor's `updated`, so peers refresh their copy. */
  profileUpdatedAt: z.iso.datetime({ offset: true }).nullable().default(null),
  /** Read positions a Mastodon client set (/api/v1/markers), so they survive a restart. */
  mastodonMarkers: z
    .partialRecord(
      z.enum(['home', 'notifications']),
      z.object({ lastReadId: z.string().regex(/^\d{1,30}$/), version: z.number().int().min(1), updatedAt: z.iso.datetime({ offset: true }) }),
    )
    .default({}),
  /** Alt texts a Mastodon client gave uploads not yet in a post (the post takes them), so a
   * restart between upload and post loses none; the oldest make way past the bound. */
  mastodonPendingAlt: z
    .array(z.object({ uploadId: z.number().int().positive(), text: z.string().max(MAX_ALT_LENGTH) }))
    .max(MAX_PENDING_ALT)
    .default([]),
});
export type Settings = z.output<typeof settingsSchema>;

/** A host name or an IP address the listener can bind to. */
const HOST_RE = /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*|[0-9A-Fa-f:.]+)$/;

/** What the author may change through Settings (the settings.update channel). */
export const settingsUpdateSchema = z
  .object({
    baseUrl: baseUrlSchema,
    username: z.string().trim().regex(USERNAME_RE, 'must be 1–30 letters, digits or _'),
    displayName: z.string().trim().max(100, 'must be at most 100 characters'),
    summary: z.string().max(5000, 'must be at most 5000 characters'),
    manuallyApprovesFollowers: z.boolean(),
    /** The upload (upload.id, an image) to use as the picture / header image; null removes it. */
    avatar: z.number().int().positive('must be an upload id').nullable(),
    header: z.number().int().positive('must be an upload id').nullable(),
    listener: z
      .object({
        enabled: z.boolean(),
        host: z.string().trim().regex(HOST_RE, 'must be a host name or an IP address'),
        port: z.number().int('must be a whole number').min(1, 'must be between 1 and 65535').max(65535, 'must be between 1 and 65535'),
        behindProxy: z.boolean(),
      })
      .partial()
      .strict(),
    workOffline: z.boolean(),
    tunnel: z
      .object({
        command: z.string().trim().max(2000, 'must be at most 2000 characters'),
        startWithTern: z.boolean(),
      })
      .partial()
      .strict(),
    /** Turns OS notifications of some types on or off; other types keep their setting. */
    osNotifications: z.partialRecord(z.enum(NOTIFICATION_TYPES), z.boolean()),
    /** Old accounts as handles (@user@host) or URLs; resolved to actor ids before saving. */
    alsoKnownAs: z
      .array(z.string().trim().min(1, 'must not contain an empty entry').max(500, 'entries must be at most 500 characters'))
      .max(MAX_ALIASES, `must list at most ${MAX_ALIASES} accounts`),
    /** Changing the base URL once people follow you changes your identity; this says "I know". */
    confirmIdentityChange: z.boolean(),
  })
  .partial()
  .strict();
export type SettingsUpdate = z.output<typeof settingsUpdateSchema>;
export type SettingsPatch = Partial<z.input<typeof settingsSchema>>;

export interface SettingsStore {
  get(): Settings;
  /** Validates and saves; throws BadInputError with the reason, saving nothing, when invalid. */
  update(patch: SettingsPatch): Settings;
  onChange(listener: (settings: Settings, previous: Settings) => void): () => void;
}

export function createSettingsStore(path: string): SettingsStore {
  const listeners = new Set<(s: Settings, p: Settings) => void>();
  let current = read();

  function read(): Settings {
    if (!existsSync(path)) return settingsSchema.parse({});
    const parsed = settingsSchema.safeParse(JSON.parse(readFileSync(path, 'utf8')));
    if (!parsed.success) throw new Error(`The settings file ${path} is not valid: ${parsed.error.issues[0]?.message}`);
    return parsed.data;
  }

  return {
    get: () => current,
    update(patch) {
      const parsed = settingsSchema.safeParse({
        ...current,
        ...patch,
        listener: { ...current.listener, ...patch.listener },
        tunnel: { ...current.tunnel, ...patch.tunnel },
        osNotifications: { ...current.osNotifications, ...patch.osNotifications },
      });
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        throw new BadInputError(`Setting ${issue?.path.join('.') ?? ''} ${issue?.message ?? 'is invalid'}.`);
      }
      const previous = current;
      const tmp = `${path}.tmp`;
      writeFileSync(tmp, `${JSON.stringify(parsed.data, null, 2)}\n`, { mode: 0o600 });
      renameSync(tmp, path);
      current = parsed.data;
      listeners.forEach((l) => l(current, previous));
      return current;
    },
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

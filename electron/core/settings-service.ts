// The Settings screen's service: reads the settings with what the author needs to see beside
// them (the key's fingerprint, the handle), and applies changes with their consequences — a
// profile edit (name, summary, picture, header image…) is announced to followers with an Update
// of the actor; a picture or header image is named by its upload id and must be a stored image;
// a base URL change is refused once people follow that URL unless confirmed; old accounts listed
// under "Also known as" are resolved to actor ids (federation/aliases.ts); listener changes
// start, move or stop the listener.
import { createHash } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { upload } from '../../db/schema';
import type { Db } from '../../db/client';
import { BadInputError, ConflictError } from './errors';
import { publishedKeys, toPerson, type PublishedKeys } from './federation/actor-document';
import { resolveAliases } from './federation/aliases';
import { countFollowers } from './federation/collections';
import { localActor } from './federation/identity';
import { summaryProblem } from './federation/profile-html';
import { withoutNul } from './without-nul';
import { queueProfileUpdate, type QueuedUpdate } from './federation/profile-update';
import { isImageType } from './media/limits';
import { localMediaPath } from './media/paths';
import type { ProfileImage, ProfileImageKind } from './media/profile-images';
import type { FederationContext, ListenerStatus, ListenerSwitch } from './ports';
import type { Settings, SettingsPatch, SettingsStore, SettingsUpdate } from './settings';

export interface SettingsView extends Settings {
  /** SHA-256 of the RSA public key (SPKI DER), as colon-separated hex pairs. */
  publicKeyFingerprint: string;
  /** The actor id and @user@host, once base URL and user name are set. */
  actorId: string | null;
  handle: string | null;
  listenerStatus: ListenerStatus;
  /** Where the page loads the picture and header image from, when set. */
  avatarSrc: string | null;
  headerSrc: string | null;
}

export interface SettingsUpdateResult extends SettingsView {
  /** The Update of the actor queued for followers by this change, if any. */
  profileUpdate: QueuedUpdate | null;
}

export interface SettingsServiceCore {
  db: Db;
  fed: FederationContext;
  clock: () => Date;
  settings: SettingsStore;
  listener?: ListenerSwitch;
}

export interface SettingsService {
  get(): Promise<SettingsView>;
  update(change: SettingsUpdate): Promise<SettingsUpdateResult>;
}

const PROFILE_FIELDS = ['username', 'displayName', 'summary', 'manuallyApprovesFollowers'] as const;
const NOT_LISTENING: ListenerStatus = { running: false, url: null, error: null };

export async function publicKeyFingerprint(publicKey: CryptoKey): Promise<string> {
  const der = new Uint8Array(await crypto.subtle.exportKey('spki', publicKey));
  return (createHash('sha256').update(der).digest('hex').match(/../g) ?? []).join(':');
}

export function createSettingsService(core: SettingsServiceCore): SettingsService {
  let keys: Promise<PublishedKeys> | null = null;
  let fingerprint: Promise<string> | null = null;

  async function view(): Promise<SettingsView> {
    fingerprint ??= publicKeyFingerprint(core.fed.keys.rsa.publicKey);
    const settings = core.settings.get();
    const local = settings.baseUrl && settings.username ? localActor(settings.baseUrl, settings.username) : null;
    return {
      ...settings,
      publicKeyFingerprint: await fingerprint,
      actorId: local?.id ?? null,
      handle: local?.handle ?? null,
      listenerStatus: core.listener?.status() ?? NOT_LISTENING,
      avatarSrc: settings.avatar ? localMediaPath(settings.avatar.hash) : null,
      headerSrc: settings.header ? localMediaPath(settings.header.hash) : null,
    };
  }

  /** The upload chosen as picture or header image: it must exist and be an image. */
  function profileImage(kind: ProfileImageKind, id: number | null | undefined): ProfileImage | null | undefined {
    if (id === undefined || id === null) return id;
    const what = kind === 'avatar' ? 'picture' : 'header image';
    const row = core.db.select().from(upload).where(eq(upload.id, id)).get();
    if (row === undefined) throw new BadInputError(`The ${what} is not an upload Tern has (upload it again).`);
    if (!isImageType(row.contentType)) throw new BadInputError(`The ${what} must be an image (JPEG, PNG, WebP, GIF or AVIF).`);
    return { id: row.id, hash: row.contentHash, contentType: row.contentType };
  }

  function refuseSilentIdentityChange(current: Settings, change: SettingsUpdate): void {
    if (change.baseUrl === undefined || current.baseUrl === null || change.baseUrl === current.baseUrl) return;
    if (change.confirmIdentityChange === true) return;
    const followers = countFollowers(core.db);
    if (followers === 0) return;
    throw new ConflictError(
      `${followers === 1 ? 'One person follows' : `${followers} people follow`} you as ${current.baseUrl}. ` +
        `Your base URL is your identity on the fediverse: at ${change.baseUrl} you would be someone new, ` +
        'nobody would follow you there, and links to your posts would break. ' +
        'If you really mean to move, confirm the identity change.',
    );
  }

  async function applyListener(before: Settings['listener'], after: Settings['listener']): Promise<void> {
    const listener = core.listener;
    if (listener === undefined) return;
    const moved = before.host !== after.host || before.port !== after.port;
    if (!after.enabled) {
      if (before.enabled) await listener.stop();
      return;
    }
    if (!before.enabled || moved || !listener.status().running) {
      // A failure (port in use…) is reported in listenerStatus; the settings stay saved.
      await listener.start({ host: after.host, port: after.port }).catch(() => undefined);
    }
  }

  /** The actor ids of the author's old accounts; looking them up needs the identity set. */
  async function resolveAliasesFor(current: Settings, fields: SettingsUpdate, entries: string[]): Promise<string[]> {
    if (entries.length === 0) return [];
    const baseUrl = fields.baseUrl ?? current.baseUrl;
    const username = fields.username ?? current.username;
    if (!baseUrl || !username) throw new BadInputError('Set your public address and user name before listing your old accounts.');
    return resolveAliases({ db: core.db, fed: core.fed, clock: core.clock, local: localActor(baseUrl, username) }, entries);
  }

  return {
    get: view,

    async update(given) {
      const change = withoutNul(given);
      const current = core.settings.get();
      refuseSilentIdentityChange(current, change);
      const { confirmIdentityChange: _confirmed, listener, tunnel, alsoKnownAs: aliases, avatar: avatarId, header: headerId, ...fields } = change;
      // Saved, a summary marked cannot read, or reads slowly, would be rendered at every fetch. (One
      // saved before is kept as it is: the rest of the settings can still be changed.)
      const summaryRefused = fields.summary === undefined || fields.summary === current.summary ? null : summaryProblem(fields.summary);
      if (summaryRefused !== null) throw new BadInputError(`summary: ${summaryRefused}`);
      const avatar = profileImage('avatar', avatarId);
      const header = profileImage('header', headerId);
      const imagesChanged = (avatar !== undefined && avatar?.hash !== current.avatar?.hash) || (header !== undefined && header?.hash !== current.header?.hash);
      const now = core.clock();
      // Handles and URLs become actor ids before anything is saved (an unknown one refuses all).
      const alsoKnownAs = aliases === undefined ? undefined : await resolveAliasesFor(current, fields, aliases);
      const aliasesChanged = alsoKnownAs !== undefined && alsoKnownAs.join('\n') !== current.alsoKnownAs.join('\n');
      const profileChanged = aliasesChanged || imagesChanged || PROFILE_FIELDS.some((f) => fields[f] !== undefined && fields[f] !== current[f]);
      const patch: SettingsPatch = {
        ...fields,
        ...(alsoKnownAs !== undefined ? { alsoKnownAs } : {}),
        ...(avatar !== undefined ? { avatar } : {}),
        ...(header !== undefined ? { header } : {}),
        ...(listener ? { listener: { ...current.listener, ...listener } } : {}),
        ...(tunnel ? { tunnel: { ...current.tunnel, ...tunnel } } : {}),
      };
      const baseUrl = fields.baseUrl ?? current.baseUrl;
      const username = fields.username ?? current.username;
      if (baseUrl && username && current.actorPublishedAt === null) patch.actorPublishedAt = now.toISOString();
      if (profileChanged) patch.profileUpdatedAt = now.toISOString();
      // Throws BadInputError with the reason, saving nothing, when a value is invalid.
      const saved = core.settings.update(patch);

      let profileUpdate: QueuedUpdate | null = null;
      const hadIdentity = current.baseUrl !== null && current.username !== null;
      if (profileChanged && hadIdentity && saved.baseUrl === current.baseUrl && saved.baseUrl && saved.username) {
        const local = localActor(saved.baseUrl, saved.username);
        keys ??= publishedKeys(core.fed.keys);
        profileUpdate = queueProfileUpdate(core.db, local, toPerson(local, saved, await keys), now);
      }
      await applyListener(current.listener, saved.listener);
      return { ...(await view()), profileUpdate };
    },
  };
}

// The local actor as ActivityPub JSON (rows and settings → ActivityPub): the Person served at
// the base URL and sent inside profile Updates. The actor id is the bare base URL, like the
// service behind the spec; its inbox and shared inbox are the same URL (/inbox). Only contexts
// Fedify ships preloaded are referenced, so peers never have to fetch one to read us.
import { exportMultibaseKey } from '@fedify/vocab-runtime';
import { apImage } from '../media/profile-images';
import type { Settings } from '../settings';
import { exportPublicKeyPem, type TernKeyPairs } from '../net/signatures';
import type { LocalActor } from './identity';
import { summaryToHtml } from './profile-html';

export const ACTOR_CONTEXT = [
  'https://www.w3.org/ns/activitystreams',
  'https://w3id.org/security/v1',
  'https://w3id.org/security/data-integrity/v1',
  'https://www.w3.org/ns/did/v1',
  'https://w3id.org/security/multikey/v1',
  {
    manuallyApprovesFollowers: 'as:manuallyApprovesFollowers',
    toot: 'http://joinmastodon.org/ns#',
    featured: { '@id': 'toot:featured', '@type': '@id' },
    discoverable: 'toot:discoverable',
    indexable: 'toot:indexable',
  },
] as const;

/** The public halves of the author's keys, in the forms the actor document publishes. */
export interface PublishedKeys {
  rsaPem: string;
  ed25519Multibase: string;
}

/** Exports the public keys once; the result does not change while the app runs. */
export async function publishedKeys(keys: TernKeyPairs): Promise<PublishedKeys> {
  return {
    rsaPem: await exportPublicKeyPem(keys.rsa.publicKey),
    ed25519Multibase: await exportMultibaseKey(keys.ed25519.publicKey),
  };
}

/** The profile half of the settings: what a profile Update changes. */
export type ProfileSettings = Pick<
  Settings,
  'displayName' | 'summary' | 'manuallyApprovesFollowers' | 'actorPublishedAt' | 'profileUpdatedAt' | 'alsoKnownAs' | 'avatar' | 'header'
>;

/** The Person document of the local actor. */
export function toPerson(local: LocalActor, profile: ProfileSettings, keys: PublishedKeys): Record<string, unknown> {
  return {
    '@context': ACTOR_CONTEXT,
    id: local.id,
    type: 'Person',
    preferredUsername: local.username,
    name: profile.displayName || local.username,
    summary: summaryToHtml(profile.summary),
    url: local.id,
    inbox: local.inbox,
    outbox: local.outbox,
    followers: local.followers,
    following: local.following,
    featured: local.featured,
    endpoints: { sharedInbox: local.sharedInbox },
    manuallyApprovesFollowers: profile.manuallyApprovesFollowers,
    discoverable: true,
    indexable: true,
    // The author's old accounts (Settings, "Also known as"): lets them Move their followers here.
    // The author's picture and header image (Settings → Profile), served by the listener.
    ...(profile.avatar ? { icon: apImage(local, 'avatar', profile.avatar) } : {}),
    ...(profile.header ? { image: apImage(local, 'header', profile.header) } : {}),
    ...(profile.alsoKnownAs.length > 0 ? { alsoKnownAs: [...profile.alsoKnownAs] } : {}),
    ...(profile.actorPublishedAt ? { published: profile.actorPublishedAt } : {}),
    ...(profile.profileUpdatedAt ? { updated: profile.profileUpdatedAt } : {}),
    publicKey: { id: local.keyId, type: 'CryptographicKey', owner: local.id, publicKeyPem: keys.rsaPem },
    assertionMethod: [
      { id: local.ed25519KeyId, type: 'Multikey', controller: local.id, publicKeyMultibase: keys.ed25519Multibase },
    ],
  };
}

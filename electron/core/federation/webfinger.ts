// Discovery documents of the local actor: the WebFinger JRD (RFC 7033), host-meta's XRD with
// the lrdd template (RFC 6415; older servers look WebFinger up through it) and NodeInfo 2.1.
// WebFinger answers for acct:user@host and for the actor URL, with or without the trailing
// slash Fedify adds to a bare-origin id (interop-notes).
import { and, count, eq, inArray } from 'drizzle-orm';
import type { DbOrTx } from '../../../db/client';
import { outbox } from '../../../db/schema';
import { TERN_VERSION } from '../version';
import { isLocalActorId, type LocalActor } from './identity';

export interface Jrd {
  subject: string;
  aliases: string[];
  links: { rel: string; type?: string; href?: string; template?: string }[];
}

/** Whether a WebFinger `resource` names the local actor. */
export function isLocalResource(resource: string, local: LocalActor): boolean {
  const value = resource.trim();
  const acct = /^(?:acct:)?@?([^@\s/]+)@([^@\s/]+)$/i.exec(value);
  if (acct) {
    return acct[1]!.toLowerCase() === local.username.toLowerCase() && acct[2]!.toLowerCase() === local.host.toLowerCase();
  }
  return isLocalActorId(value, local);
}

export function webfingerJrd(local: LocalActor): Jrd {
  return {
    subject: local.acct,
    aliases: [local.id],
    links: [
      { rel: 'self', type: 'application/activity+json', href: local.id },
      { rel: 'http://webfinger.net/rel/profile-page', type: 'text/html', href: local.id },
    ],
  };
}

const escapeXml = (s: string) =>
  s.replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c] ?? c);

export function hostMetaXrd(local: LocalActor): string {
  const template = `${local.baseUrl}/.well-known/webfinger?resource={uri}`;
  return (
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    '<XRD xmlns="http://docs.oasis-open.org/ns/xri/xrd-1.0">\n' +
    `  <Link rel="lrdd" type="application/jrd+json" template="${escapeXml(template)}"/>\n` +
    '</XRD>\n'
  );
}

export const NODEINFO_SCHEMA = 'http://nodeinfo.diaspora.software/ns/schema/2.1';

export function nodeinfoLinks(local: LocalActor) {
  return { links: [{ rel: NODEINFO_SCHEMA, href: `${local.baseUrl}/nodeinfo/2.1` }] };
}

/** Types counted as the author's posts. */
export const POST_TYPES = ['Note', 'Article', 'Question', 'Page', 'Video', 'Audio', 'Image', 'Event'] as const;

/** Public, non-deleted, non-transient posts (Announces and other activities are not posts). */
export function countLocalPosts(db: DbOrTx): number {
  const row = db
    .select({ n: count() })
    .from(outbox)
    .where(
      and(
        inArray(outbox.apType, [...POST_TYPES]),
        eq(outbox.visibility, 'PUBLIC'),
        eq(outbox.isDeleted, false),
        eq(outbox.isTransient, false),
      ),
    )
    .get();
  return row?.n ?? 0;
}

export function nodeinfoDocument(db: DbOrTx) {
  return {
    version: '2.1',
    software: { name: 'tern', version: TERN_VERSION },
    protocols: ['activitypub'],
    services: { inbound: [], outbound: [] },
    openRegistrations: false,
    usage: { users: { total: 1, activeMonth: 1, activeHalfyear: 1 }, localPosts: countLocalPosts(db) },
    metadata: {},
  };
}

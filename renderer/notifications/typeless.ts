// What a notification with no type says when it is a move (federation/process/move.ts: the
// actor is the new account), a report a server forwarded (process/flag.ts: the actor is the
// reporter), a quote of one of the author's posts (process/quote-request.ts: the actor is the
// quoter) or the answer to one of the author's own quotes (process/quote-answer.ts, or its
// revocation: process/quote-revocation.ts; the actor is the quoted post's author), from the `detail` Tern joins to it. Polls that ended are worded in
// the view.
import { hrefOf } from '../places';
import { strings } from '../strings';
import type { NotificationGroup } from './groups';

const t = strings.notifications;

export interface TypelessWording {
  kind: 'moved' | 'report' | 'quoted' | 'quote-answered';
  sentence: string;
  /** Links shown under the sentence: the reported posts of ours. */
  links: { href: string; label: string }[];
  /** Where the whole row leads: the new account's profile for a move, the quoting post for a
   * quote (the author's own, for an answer to theirs); none for a report (its posts are links). */
  target: { href: string; external: boolean } | null;
}

export function typelessWording(group: NotificationGroup): TypelessWording | null {
  const detail = group.kind === null ? group.items[0]?.detail : null;
  if (!detail) return null;
  if (detail.kind === 'moved') {
    const to = group.actors[0];
    const toName = to?.handle || to?.name || 'Someone';
    const fromName = detail.from?.handle || detail.from?.name || 'Someone';
    return { kind: 'moved', sentence: t.moved(fromName, toName), links: [], target: to?.url ? { href: to.url, external: true } : null };
  }
  if (detail.kind === 'quoted') {
    const who = group.actors[0];
    const target = detail.quoting ? { href: hrefOf('thread', { ap: detail.quoting }), external: false } : null;
    return { kind: 'quoted', sentence: t.quoted(who?.handle || who?.name || 'Someone'), links: [], target };
  }
  if (detail.kind === 'quote-answered') {
    const who = group.actors[0];
    const ours = group.outboxObject;
    const target = ours && !ours.isDeleted ? { href: hrefOf('thread', { ap: ours.apId }), external: false } : null;
    const name = who?.handle || who?.name || 'Someone';
    return { kind: 'quote-answered', sentence: detail.revoked ? t.quoteApprovalRemoved(name) : t.quoteAnswered(name, detail.approved), links: [], target };
  }
  const posts = detail.posts.filter((post) => !post.isDeleted);
  return {
    kind: 'report',
    sentence: t.report(detail.server, detail.posts.length, detail.comment),
    links: posts.map((post) => ({ href: hrefOf('thread', { ap: post.apId }), label: t.reportedPost(post.excerpt) })),
    target: null,
  };
}

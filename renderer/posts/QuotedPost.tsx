// The post a post quotes (its `quote`, `quoteUrl`, `_misskey_quote`…: federation/quotes.ts),
// shown inside it: who wrote it, its text (sanitized again, as every post's), how many
// attachments it has, and a link to its thread. The core looks it up by id (lookup.resolve: a
// stored post at once, another fetched through the core's client and sanitized there), once per
// id for the whole page. A quote inside a quote is not shown again (a link says it is there).
// A quoted post with a content warning shows the warning, not its text.
import { useEffect, useState } from 'react';
import type { PostView } from '../../electron/core/ipc/author-contract';
import { call } from '../api';
import { Avatar } from '../components/Avatar';
import { Html } from '../content/Html';
import { EmojiText } from '../content/emoji';
import { hrefOf } from '../places';
import { strings } from '../strings';
import { externalHref } from './links';

const t = strings.post;
const KEEP = 200;
const looked = new Map<string, Promise<PostView | null>>();

/** The quoted post, looked up once per id (the newest KEEP ids are remembered). */
function quotedPost(apId: string): Promise<PostView | null> {
  let found = looked.get(apId);
  if (found === undefined) {
    found = call('lookup.resolve', { query: apId }).then(
      (result) => (result.kind === 'post' ? result.post : null),
      () => null,
    );
    looked.set(apId, found);
    if (looked.size > KEEP) looked.delete(looked.keys().next().value!);
  }
  return found;
}

const hostOf = (url: string) => {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
};

export function QuotedPost({ apId }: { apId: string }) {
  const [post, setPost] = useState<PostView | null | undefined>(undefined);
  useEffect(() => {
    let live = true;
    setPost(undefined);
    void quotedPost(apId).then((found) => live && setPost(found));
    return () => {
      live = false;
    };
  }, [apId]);

  if (post === undefined) {
    return (
      <div className="post__quote post__quote--loading" aria-busy="true" data-testid="quoted-post">
        {t.quoteLoading}
      </div>
    );
  }
  if (post === null || post.deleted) {
    const href = externalHref(apId);
    return (
      <a className="post__quote post__quote--missing" data-testid="quoted-post" href={href} target="_blank" rel="noopener noreferrer nofollow">
        {t.quoteUnavailable(hostOf(apId))}
      </a>
    );
  }
  const warning = post.summary ?? (post.sensitive ? t.sensitive : null);
  return (
    <section className="post__quote" data-testid="quoted-post" aria-label={t.quoted(post.author.name)}>
      <header className="post__quote-header">
        <Avatar name={post.author.name} id={post.author.apId} size="small" src={post.author.iconSrc} />
        <span className="post__quote-name">
          <EmojiText text={post.author.name} emojis={post.author.emojis} />
        </span>
        {post.author.handle && <span className="post__quote-handle">{post.author.handle}</span>}
      </header>
      {warning !== null ? (
        <p className="post__quote-warning">{t.quoteWarning(warning)}</p>
      ) : (
        <Html className="post__quote-content" html={post.contentHtml} emojis={post.emojis} />
      )}
      {post.quote && <p className="post__quote-more">{t.quotesAnother}</p>}
      {post.attachments.length > 0 && <p className="post__quote-more">{t.quoteMedia(post.attachments.length)}</p>}
      <a className="post__quote-open" href={hrefOf('thread', { ap: post.apId })}>
        {t.openThread}
      </a>
    </section>
  );
}

// The post a post quotes (its `quote`, `quoteUrl`, `_misskey_quote`…: federation/quotes.ts),
// shown inside it: who wrote it, its text (sanitized again, as every post's), how many
// attachments it has, and a link to its thread. The core gives it (posts.quoted): a stored post
// at once; one it fetches when the quoting post is the author's own or from someone they follow;
// for a stranger's quote it asks first (a button), so that showing a post never makes Tern
// contact a server of a stranger's choosing unasked. What the core answered is remembered for
// the page, once per quote; a failure (offline) is not, so the next showing tries again.
// A quote inside a quote is not shown again (a line says it is there). A quoted post with a
// content warning shows the warning, not its text.
import { useEffect, useRef, useState } from 'react';
import type { PostView, QuotedView } from '../../electron/core/ipc/author-contract';
import { call } from '../api';
import { Avatar } from '../components/Avatar';
import { Html } from '../content/Html';
import { EmojiText } from '../content/emoji';
import { hrefOf } from '../places';
import { strings } from '../strings';
import { externalHref, hostOf } from './links';

const t = strings.post;
const KEEP = 200;
const answered = new Map<string, QuotedView>();

function remember(apId: string, view: QuotedView): QuotedView {
  answered.delete(apId);
  answered.set(apId, view);
  if (answered.size > KEEP) answered.delete(answered.keys().next().value!);
  return view;
}

/** Answers being asked now, one per quote for the whole page. */
const asking = new Map<string, Promise<QuotedView>>();

async function quotedPost(apId: string, by: string): Promise<QuotedView> {
  const known = answered.get(apId);
  if (known) return known;
  const key = `${apId} ${by}`;
  let flight = asking.get(key);
  if (!flight) {
    flight = call('posts.quoted', { apId, by }).then(
      // "ask" depends on who quotes (a followed account's quote of the same post is fetched): not remembered.
      (view) => (view.kind === 'ask' ? view : remember(apId, view)),
    );
    flight.finally(() => asking.delete(key)).catch(() => undefined);
    asking.set(key, flight);
  }
  return flight;
}

/** Fetched when the author asks (a stranger's quote): through the core's look-up. */
async function fetchQuoted(apId: string): Promise<QuotedView> {
  const found = await call('lookup.resolve', { query: apId });
  return remember(apId, found.kind === 'post' ? { kind: 'post', post: found.post } : { kind: 'gone' });
}

type Shown = QuotedView | { kind: 'loading' } | { kind: 'failed' };

export function QuotedPost({ apId, by }: { apId: string; by: string }) {
  const [shown, setShown] = useState<Shown>(() => answered.get(apId) ?? { kind: 'loading' });
  // The quote this component shows now, while it is mounted: a late answer to another is dropped.
  const current = useRef<string | null>(apId);
  useEffect(() => {
    current.current = apId;
    return () => {
      current.current = null;
    };
  }, [apId]);
  useEffect(() => {
    let live = true;
    const known = answered.get(apId);
    if (known) setShown(known);
    else {
      setShown({ kind: 'loading' });
      quotedPost(apId, by).then(
        (view) => live && setShown(view),
        () => live && setShown({ kind: 'failed' }),
      );
    }
    return () => {
      live = false;
    };
  }, [apId, by]);

  const load = () => {
    setShown({ kind: 'loading' });
    const still = () => current.current === apId;
    fetchQuoted(apId).then(
      (view) => still() && setShown(view),
      () => still() && setShown({ kind: 'failed' }),
    );
  };

  const host = hostOf(apId);
  if (shown.kind === 'loading') {
    return (
      <div className="post__quote post__quote--loading" aria-busy="true" data-testid="quoted-post">
        {t.quoteLoading}
      </div>
    );
  }
  if (shown.kind === 'ask') {
    return (
      <div className="post__quote post__quote--missing" data-testid="quoted-post">
        <button type="button" className="link-button" onClick={load}>
          {t.quoteAsk(host)}
        </button>
      </div>
    );
  }
  if (shown.kind === 'failed') {
    return (
      <div className="post__quote post__quote--missing" data-testid="quoted-post" role="status">
        <span>{t.quoteFailed(host)}</span>{' '}
        <button type="button" className="link-button" onClick={load}>
          {strings.retry}
        </button>
      </div>
    );
  }
  if (shown.kind === 'gone' || shown.post.deleted) {
    return (
      <a className="post__quote post__quote--missing" data-testid="quoted-post" href={externalHref(apId)} target="_blank" rel="noopener noreferrer nofollow">
        {t.quoteUnavailable(host)}
      </a>
    );
  }
  return <QuoteBody post={shown.post} />;
}

function QuoteBody({ post }: { post: PostView }) {
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

// Above the editor when replying or quoting: the post answered or quoted, small, with a way to
// stop replying (or quoting).
import { useEffect, useRef, useState } from 'react';
import type { PostView } from '../posts/model';
import { call } from '../api';
import { Avatar } from '../components/Avatar';
import { Delayed } from '../components/Delayed';
import { CloseIcon, QuoteIcon, ReplyIcon } from '../components/icons';
import { nameSlot, WithNames } from '../components/WithNames';
import { Html } from '../content/Html';
import { strings } from '../strings';

const t = strings.compose;

const WORDS = {
  reply: { label: t.replyingTo, named: t.replyingToName, cancel: t.cancelReply, missing: t.replyMissing, icon: <ReplyIcon /> },
  quote: { label: t.quoting, named: t.quotingName, cancel: t.cancelQuote, missing: t.quoteMissing, icon: <QuoteIcon /> },
};

/** Loads the post answered (or quoted); calls onLoaded once, so the editor can mention its author. */
export function ReplyContext({
  apId,
  onCancel,
  onLoaded = () => {},
  kind = 'reply',
}: {
  apId: string;
  onCancel: () => void;
  onLoaded?: (post: PostView) => void;
  kind?: 'reply' | 'quote';
}) {
  const w = WORDS[kind];
  const [post, setPost] = useState<PostView | null>(null);
  const [failed, setFailed] = useState(false);
  // Called once per post answered, whatever callback the latest render passed.
  const loaded = useRef(onLoaded);
  loaded.current = onLoaded;

  useEffect(() => {
    let current = true;
    call('thread.get', { apId }).then(
      (thread) => {
        if (!current) return;
        setPost(thread.post);
        loaded.current(thread.post);
      },
      () => current && setFailed(true),
    );
    return () => {
      current = false;
    };
  }, [apId]);

  return (
    <section className="reply-context card" aria-label={w.label} data-testid={`${kind}-context`}>
      <div className="reply-context__head">
        {w.icon}
        <span>{post ? <WithNames text={w.named(nameSlot(0))} names={[post.author.name]} /> : w.label}</span>
        <button type="button" className="icon-button" onClick={onCancel} aria-label={w.cancel} title={w.cancel}>
          <CloseIcon />
        </button>
      </div>
      {post ? (
        <div className="reply-context__post">
          <Avatar name={post.author.name} id={post.author.apId} size="small" src={post.author.iconSrc} />
          <div className="reply-context__text">
            <span className="post__handle">{post.author.handle ?? post.author.apId}</span>
            {post.title && <strong className="reply-context__title">{post.title}</strong>}
            {post.summary ? <p className="reply-context__cw">{post.summary}</p> : <Html className="reply-context__content" html={post.contentHtml} />}
          </div>
        </div>
      ) : failed ? (
        <p className="reply-context__missing">{w.missing}</p>
      ) : (
        <Delayed>
          <p className="reply-context__missing" role="status">
            {strings.loading}
          </p>
        </Delayed>
      )}
    </section>
  );
}

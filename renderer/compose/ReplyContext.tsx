// Above the editor when replying: the post being answered, small, with a way to stop replying.
import { useEffect, useRef, useState } from 'react';
import type { PostView } from '../posts/model';
import { call } from '../api';
import { Avatar } from '../components/Avatar';
import { Delayed } from '../components/Delayed';
import { CloseIcon, ReplyIcon } from '../components/icons';
import { nameSlot, WithNames } from '../components/WithNames';
import { Html } from '../content/Html';
import { strings } from '../strings';

const t = strings.compose;

/** Loads the post answered; calls onLoaded once, so the editor can mention its author. */
export function ReplyContext({ apId, onCancel, onLoaded }: { apId: string; onCancel: () => void; onLoaded: (post: PostView) => void }) {
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
    <section className="reply-context card" aria-label={t.replyingTo}>
      <div className="reply-context__head">
        <ReplyIcon />
        <span>{post ? <WithNames text={t.replyingToName(nameSlot(0))} names={[post.author.name]} /> : t.replyingTo}</span>
        <button type="button" className="icon-button" onClick={onCancel} aria-label={t.cancelReply} title={t.cancelReply}>
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
        <p className="reply-context__missing">{t.replyMissing}</p>
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

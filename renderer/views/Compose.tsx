// Compose: Markdown with a live preview, who can see it, a content warning, and — when replying
// — the post answered above. The draft is kept across restarts; posting works offline (Tern
// saves the post and its deliveries at once, and sends them when it is online). With
// ?edit=<post id> it edits one of the author's posts instead.
import { useEffect, useId, useRef, useState, type FormEvent, type KeyboardEvent } from 'react';
import { ApiError, call, toApiError } from '../api';
import { CheckIcon, ClockIcon } from '../components/icons';
import { isEmptyDraft, useDraft } from '../compose/draft';
import { useMentionSuggestions } from '../compose/MentionSuggestions';
import { ReplyContext } from '../compose/ReplyContext';
import { VisibilityPicker } from '../compose/VisibilityPicker';
import { EditPost } from '../compose/EditPost';
import { Preview } from '../compose/Preview';
import { hrefOf, type Route } from '../places';
import { useConnectivityStore } from '../store/connectivity';
import { formatNumber, plural, strings } from '../strings';
import { PollBuilder } from '../polls/PollBuilder';
import { pollInput, usePollDraft } from '../polls/pollDraft';
import { AttachmentPicker } from '../media/AttachmentPicker';
import { useAttachments } from '../media/useAttachments';

const t = strings.compose;

export function Compose({ route }: { route: Route }) {
  const editing = route.params.get('edit');
  if (editing) return <EditPost apId={editing} />;
  return <NewPost replyTo={route.params.get('reply')} quoteOf={route.params.get('quote')} />;
}

type Sent = 'offline' | 'local' | 'sending' | null;

/** What the last send said, for the Compose that rewriting the address after sending a reply or
 * a quote mounts anew (App keys views by address). */
let sentBeforeRemount: Sent = null;

function NewPost({ replyTo, quoteOf }: { replyTo: string | null; quoteOf: string | null }) {
  const id = useId();
  const [draft, change, clear] = useDraft();
  const [sending, setSending] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const [sent, setSent] = useState<Sent>(() => sentBeforeRemount);
  useEffect(() => {
    sentBeforeRemount = null;
  }, []);
  const online = useConnectivityStore((s) => s.online);
  const [pollDraft, changePoll, clearPoll] = usePollDraft();
  const media = useAttachments();
  const empty = isEmptyDraft(draft) && media.items.length === 0;
  const editor = useRef<HTMLTextAreaElement>(null);
  const mentions = useMentionSuggestions(editor, draft.text, (text) => change({ text }));

  // Opening Compose from a post's Reply makes the draft a reply to it.
  useEffect(() => {
    if (replyTo && replyTo !== draft.inReplyTo) change({ inReplyTo: replyTo });
    // Only a new address sets the reply; the author may cancel it afterwards.
  }, [replyTo]);

  // Opening Compose from a post's Quote makes the draft quote it (the same: once per address).
  useEffect(() => {
    if (quoteOf && quoteOf !== draft.quote) change({ quote: quoteOf });
  }, [quoteOf]);

  async function send(event?: FormEvent) {
    event?.preventDefault();
    if (empty || sending || media.blocker) return;
    const poll = pollInput(pollDraft);
    if (poll === 'incomplete') {
      setError(new ApiError('bad_input', strings.polls.needOptions, 'posts.create'));
      return;
    }
    setSending(true);
    setError(null);
    try {
      const post = await call('posts.create', {
        content: draft.text,
        visibility: draft.visibility,
        summary: draft.hasContentWarning && draft.contentWarning.trim() ? draft.contentWarning.trim() : null,
        ...(draft.hasContentWarning || media.sensitive ? { sensitive: true } : {}),
        inReplyTo: draft.inReplyTo,
        ...(draft.quote ? { quote: draft.quote } : {}),
        ...(poll ? { poll } : {}),
        ...(media.items.length > 0 ? { attachments: media.forPost() } : {}),
      });
      const outcome: Sent = online === false || post.delivery.state === 'queued' ? 'offline' : post.delivery.state === 'local' ? 'local' : 'sending';
      setSent(outcome);
      clear();
      clearPoll();
      media.clear();
      if (replyTo || quoteOf) {
        sentBeforeRemount = outcome;
        window.history.replaceState(null, '', hrefOf('compose'));
      }
      void useConnectivityStore.getState().refresh();
    } catch (err) {
      setError(toApiError(err, 'posts.create'));
    } finally {
      setSending(false);
    }
  }

  function onKeyDown(event: KeyboardEvent) {
    if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) void send();
  }

  const chars = [...draft.text].length;
  return (
    <article className="view" aria-labelledby="compose-title">
      <header className="view__header">
        <div>
          <h1 id="compose-title">{draft.inReplyTo ? t.replyTitle : draft.quote ? t.quoteTitle : t.title}</h1>
          <p className="view__lede">{t.lede}</p>
        </div>
      </header>

      {sent && empty && (
        <div className={sent === 'offline' ? 'notice notice--waiting' : 'notice notice--ok'} role="status" data-testid="compose-sent">
          {sent === 'offline' ? <ClockIcon /> : <CheckIcon />}
          <div>
            <p className="notice__title">{sent === 'offline' ? t.savedOffline : sent === 'local' ? t.postedLocal : t.posted}</p>
            <p className="notice__detail">
              <a href={hrefOf('profile')}>{t.seeInProfile}</a>
            </p>
          </div>
        </div>
      )}

      {draft.inReplyTo && (
        <ReplyContext
          apId={draft.inReplyTo}
          onCancel={() => change({ inReplyTo: null })}
          onLoaded={(post) => {
            const handle = post.author.handle;
            if (handle && !post.mine.own && draft.text.trim() === '') change({ text: `${handle} `, visibility: post.visibility === 'DIRECT' ? 'DIRECT' : draft.visibility });
          }}
        />
      )}

      {draft.quote && <ReplyContext kind="quote" apId={draft.quote} onCancel={() => change({ quote: null })} />}

      <form className="card compose" onSubmit={send} aria-labelledby="compose-title" onKeyDown={onKeyDown}>
        {draft.hasContentWarning && (
          <div className="compose__warning">
            <label className="visually-hidden" htmlFor={`${id}-cw`}>
              {t.contentWarning}
            </label>
            <input
              id={`${id}-cw`}
              className="field__input compose__warning-input"
              placeholder={t.contentWarningPlaceholder}
              value={draft.contentWarning}
              onChange={(e) => change({ contentWarning: e.target.value })}
            />
          </div>
        )}
        <label className="visually-hidden" htmlFor={`${id}-text`}>
          {t.textLabel}
        </label>
        <div className="compose__editor">
          <textarea
            ref={editor}
            id={`${id}-text`}
            className="compose__text"
            placeholder={t.placeholder}
            value={draft.text}
            rows={6}
            autoFocus
            aria-describedby={`${id}-count`}
            {...mentions.editorProps}
            onChange={(e) => {
              change({ text: e.target.value });
              mentions.onTyped(e.target.selectionEnd);
            }}
          />
          {mentions.popup}
        </div>
        <div className="compose__toolbar">
          <VisibilityPicker value={draft.visibility} onChange={(visibility) => change({ visibility })} />
          <button
            type="button"
            className="button button--small compose__cw-toggle"
            aria-pressed={draft.hasContentWarning}
            aria-label={t.contentWarning}
            title={t.contentWarning}
            onClick={() => change({ hasContentWarning: !draft.hasContentWarning })}
          >
            {t.contentWarningShort}
          </button>
          <button
            type="button"
            className="button button--small compose__poll-toggle"
            aria-pressed={pollDraft.on}
            aria-label={strings.polls.addLabel}
            title={strings.polls.addLabel}
            onClick={() => changePoll({ on: !pollDraft.on })}
          >
            {strings.polls.add}
          </button>
        </div>
        {pollDraft.on && <PollBuilder poll={pollDraft} change={changePoll} />}
        <p className="compose__visibility-hint">{strings.visibility.hints[draft.visibility]}</p>
        <AttachmentPicker media={media} />

        {error && (
          <p className="field__error" role="alert">
            {error.message}
          </p>
        )}
        {media.blocker && !empty && <p className="compose__visibility-hint">{media.blocker}</p>}
        <div className="form__actions compose__actions">
          <span className="compose__count" id={`${id}-count`}>
            {formatNumber(chars)} {plural(chars, { one: t.character, other: t.characters })}
            {!isEmptyDraft(draft) && ` · ${t.draftKept}`}
          </span>
          {!isEmptyDraft(draft) && (
            <button
              type="button"
              className="button"
              onClick={() => {
                clear();
                clearPoll();
                media.clear();
              }}
            >
              {t.discard}
            </button>
          )}
          <button type="submit" className="button button--primary" disabled={sending || empty || media.blocker !== null} aria-keyshortcuts="Control+Enter">
            {sending ? t.posting : draft.inReplyTo ? t.sendReply : draft.quote ? t.sendQuote : t.send}
          </button>
        </div>
      </form>

      <Preview text={draft.text} contentWarning={draft.hasContentWarning ? draft.contentWarning : ''} />
    </article>
  );
}

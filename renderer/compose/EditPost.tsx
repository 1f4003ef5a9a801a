// Editing one of the author's posts: its Markdown and content warning, with the same live
// preview. Saving sends an Update to everyone who received the post; who can see it stays.
import { useEffect, useId, useState, type FormEvent } from 'react';
import { call, toApiError, type ApiError } from '../api';
import { ErrorState } from '../components/ErrorState';
import { ListSkeleton } from '../lists/ListParts';
import { forgetList } from '../lists/usePagedList';
import { navigate } from '../places';
import type { PostView } from '../posts/model';
import { strings } from '../strings';
import { Preview } from './Preview';

const t = strings.compose;

export function EditPost({ apId }: { apId: string }) {
  const id = useId();
  const [post, setPost] = useState<PostView | null>(null);
  const [loadError, setLoadError] = useState<ApiError | null>(null);
  const [text, setText] = useState('');
  const [warning, setWarning] = useState('');
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);

  async function load() {
    setLoadError(null);
    try {
      const { post } = await call('thread.get', { apId });
      setPost(post);
      setText(post.markdown ?? '');
      setWarning(post.summary ?? '');
    } catch (err) {
      setLoadError(toApiError(err, 'thread.get'));
    }
  }

  // The view is keyed by its address, so it loads the post it names once.
  useEffect(() => {
    void load();
  }, []);

  async function save(event: FormEvent) {
    event.preventDefault();
    setSaving(true);
    setError(null);
    try {
      await call('posts.edit', { apId, content: text, summary: warning.trim() || null, sensitive: warning.trim() !== '' });
      forgetList('stream');
      navigate('profile');
    } catch (err) {
      setError(toApiError(err, 'posts.edit'));
      setSaving(false);
    }
  }

  return (
    <article className="view" aria-labelledby="edit-title">
      <header className="view__header">
        <div>
          <h1 id="edit-title">{t.editTitle}</h1>
          <p className="view__lede">{t.editLede}</p>
        </div>
      </header>
      {loadError && <ErrorState context={t.editLoadFailed} error={loadError} onRetry={() => void load()} />}
      {!post && !loadError && <ListSkeleton rows={1} />}
      {post && (
        <>
          <form className="card compose" onSubmit={save} aria-labelledby="edit-title">
            <label className="visually-hidden" htmlFor={`${id}-cw`}>
              {t.contentWarning}
            </label>
            <input
              id={`${id}-cw`}
              className="field__input compose__warning-input"
              placeholder={t.contentWarningOptional}
              value={warning}
              onChange={(e) => setWarning(e.target.value)}
            />
            <label className="visually-hidden" htmlFor={`${id}-text`}>
              {t.textLabel}
            </label>
            <textarea id={`${id}-text`} className="compose__text" rows={6} value={text} autoFocus onChange={(e) => setText(e.target.value)} />
            {error && (
              <p className="field__error" role="alert">
                {error.message}
              </p>
            )}
            <div className="form__actions compose__actions">
              <button type="button" className="button" onClick={() => window.history.back()}>
                {strings.cancel}
              </button>
              <button type="submit" className="button button--primary" disabled={saving || text.trim() === ''}>
                {saving ? strings.saving : t.saveEdit}
              </button>
            </div>
          </form>
          <Preview text={text} contentWarning={warning} />
        </>
      )}
    </article>
  );
}

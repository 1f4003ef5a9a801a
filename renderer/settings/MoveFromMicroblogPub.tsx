// Settings → Move from microblog.pub: the author names microblog.pub's data/ folder, Tern reads
// it and shows who they will be and what comes along, and only on confirmation moves it in
// (identity, key, rows, uploads; Tern's current files moved aside) and reopens; the page then
// reloads on the new data. Refusals (not such a folder, unknown revision, a Tern that already
// holds posts) are shown as Tern words them; nothing is changed by them.
import { useState, type FormEvent } from 'react';
import { ApiError, call, toApiError } from '../api';
import { TextField } from '../components/Field';
import { AttentionIcon } from '../components/icons';
import type { Output } from '../../electron/core/ipc/contract';
import { strings } from '../strings';
import { leaveNotice, reloadApp, takeNotice } from './notice';
import { dataStrings } from './strings';

const t = dataStrings.microblogPub;

export function MoveFromMicroblogPub() {
  const [folder, setFolder] = useState('');
  const [preview, setPreview] = useState<Output<'import.microblogpub'>['preview'] | null>(null);
  const [busy, setBusy] = useState<'check' | 'move' | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [done] = useState(() => takeNotice('microblogpub'));

  const check = async (event: FormEvent) => {
    event.preventDefault();
    setBusy('check');
    setError(null);
    setPreview(null);
    try {
      setPreview((await call('import.microblogpub', { folder, confirm: false })).preview);
    } catch (err) {
      setError(toApiError(err, 'import.microblogpub'));
    } finally {
      setBusy(null);
    }
  };
  const move = async () => {
    if (!preview) return;
    setBusy('move');
    setError(null);
    try {
      const result = await call('import.microblogpub', { folder: preview.folder, confirm: true });
      leaveNotice('microblogpub', t.moved(result.preview.identity.handle, result.movedAside));
      reloadApp();
    } catch (err) {
      setError(toApiError(err, 'import.microblogpub'));
      setBusy(null);
    }
  };

  return (
    <section className="section" aria-labelledby="settings-microblogpub-title" data-testid="microblogpub-section">
      <div className="section__header">
        <h2 id="settings-microblogpub-title">{t.title}</h2>
      </div>
      <form className="card form" onSubmit={(event) => void check(event)} noValidate>
        <p className="form__lede">{t.lede}</p>
        <TextField
          label={t.folder}
          hint={t.folderHint}
          spellCheck={false}
          value={folder}
          onChange={(e) => {
            setFolder(e.target.value);
            setPreview(null);
          }}
        />
        {preview && (
          <div className="notice notice--attention" data-testid="microblogpub-preview">
            <AttentionIcon />
            <div>
              <p className="notice__title">{t.previewTitle(preview.identity.handle)}</p>
              <p className="notice__detail">{t.previewFacts(preview.counts, preview.uploads)}</p>
              <p className="notice__detail">{t.revision(preview.revision, preview.identity.baseUrl)}</p>
              {preview.leftBehind.length > 0 && <p className="notice__detail">{t.leftBehind(preview.leftBehind)}</p>}
              {preview.replacesBaseUrl && <p className="notice__detail">{t.replaces(preview.replacesBaseUrl, preview.identity.baseUrl)}</p>}
            </div>
          </div>
        )}
        {error && (
          <p className="field__error" role="alert">
            {error.message}
          </p>
        )}
        <div className="form__actions">
          <span className="form__saved" role="status" data-testid="microblogpub-result">
            {done ?? ''}
          </span>
          {preview ? (
            <>
              <button type="button" className="button" disabled={busy !== null} onClick={() => setPreview(null)}>
                {strings.cancel}
              </button>
              <button type="button" className="button button--danger" disabled={busy !== null} onClick={() => void move()}>
                {busy === 'move' ? t.moving : t.confirmButton}
              </button>
            </>
          ) : (
            <button type="submit" className="button button--primary" disabled={busy !== null || folder.trim() === ''}>
              {busy === 'check' ? t.checking : t.check}
            </button>
          )}
        </div>
      </form>
    </section>
  );
}

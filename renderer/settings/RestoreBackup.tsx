// Settings → Backups → Restore: pick a backup of the list (or give a file's path), confirm, and
// Tern checks it, puts it in place with the current data moved aside, and reopens on it; the
// page then reloads to show the restored data. Errors say what was wrong; nothing is changed.
import { useId, useState } from 'react';
import { ApiError, call, toApiError } from '../api';
import { TextField } from '../components/Field';
import type { BackupFile } from '../../electron/core/data/backup';
import { formatDateTime, strings } from '../strings';
import { leaveNotice, reloadApp, takeNotice } from './notice';
import { dataStrings } from './strings';

const t = dataStrings.restore;

export function RestoreBackup({ backups }: { backups: readonly BackupFile[] }) {
  const selectId = useId();
  const [picked, setPicked] = useState('');
  const [path, setPath] = useState('');
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const [done] = useState(() => takeNotice('restore'));
  const chosen = path.trim() || picked;

  const restore = async () => {
    setBusy(true);
    setError(null);
    try {
      const result = await call('backup.restore', { backup: chosen });
      leaveNotice('restore', t.restored(result.restoredFrom, result.movedAside));
      reloadApp();
    } catch (err) {
      setError(toApiError(err, 'backup.restore'));
      setConfirming(false);
      setBusy(false);
    }
  };

  return (
    <div className="form__part" data-testid="restore-backup">
      <h3 className="form__subtitle">{t.title}</h3>
      <p className="form__lede">{t.lede}</p>
      {backups.length > 0 && (
        <div className="field">
          <label className="field__label" htmlFor={selectId}>
            {t.pick}
          </label>
          <select id={selectId} className="field__input" value={picked} onChange={(e) => setPicked(e.target.value)}>
            <option value="">{t.pickNone}</option>
            {backups.map((b) => (
              <option key={b.name} value={b.name}>
                {formatDateTime(new Date(b.createdAt))} — {b.name}
              </option>
            ))}
          </select>
        </div>
      )}
      <TextField label={t.path} hint={t.pathHint} spellCheck={false} value={path} onChange={(e) => setPath(e.target.value)} />
      {error && (
        <p className="field__error" role="alert">
          {error.message}
        </p>
      )}
      {confirming && <p className="form__note">{t.confirm(chosen)}</p>}
      {confirming && (
        <div className="form__confirm" role="group" aria-label={t.title}>
          <button type="button" className="button button--danger" disabled={busy} onClick={() => void restore()}>
            {busy ? t.restoring : t.confirmButton}
          </button>
          <button type="button" className="button" disabled={busy} onClick={() => setConfirming(false)}>
            {strings.cancel}
          </button>
        </div>
      )}
      <div className="form__actions">
        <span className="form__saved" role="status" data-testid="restore-result">
          {done ?? ''}
        </span>
        {!confirming && (
          <button
            type="button"
            className="button"
            onClick={() => {
              setError(null);
              if (chosen === '') setError(new ApiError('bad_input', t.nothingChosen, 'backup.restore'));
              else setConfirming(true);
            }}
          >
            {t.restore}
          </button>
        )}
      </div>
    </div>
  );
}

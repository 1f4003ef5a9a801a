// Settings → Profile: the picture and the header image. Picking a file checks it here (an image,
// at most 16 MB), uploads it through the same media.upload* calls as Compose, and saves it at
// once (settings.update), which tells followers' servers; Remove clears it the same way. The
// preview is what Tern saved, loaded from the app's own origin.
import { useId, useRef, useState } from 'react';
import { toApiError } from '../api';
import { uploadFile } from '../media/upload';
import { useSettingsStore, type SettingsView } from '../store/settings';
import { PROFILE_IMAGE_TYPES, profileImageProblem } from './profileImage';
import { dataStrings } from './strings';
import '../styles/media.css';

const t = dataStrings.profileImages;

export function ProfileImages({ settings }: { settings: SettingsView }) {
  return (
    <div className="profile-images">
      <ProfileImagePicker kind="avatar" src={settings.avatarSrc} />
      <ProfileImagePicker kind="header" src={settings.headerSrc} />
    </div>
  );
}

function ProfileImagePicker({ kind, src }: { kind: 'avatar' | 'header'; src: string | null }) {
  const id = useId();
  const input = useRef<HTMLInputElement>(null);
  const save = useSettingsStore((state) => state.save);
  const [busy, setBusy] = useState<'uploading' | 'saving' | null>(null);
  const [progress, setProgress] = useState(0);
  const [error, setError] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);
  const label = kind === 'avatar' ? t.avatar : t.header;

  async function pick(file: File) {
    setSaved(false);
    const problem = profileImageProblem(file);
    setError(problem);
    if (problem) return;
    let stage: 'uploading' | 'saving' = 'uploading';
    setBusy(stage);
    setProgress(0);
    try {
      const upload = await uploadFile(file, file.type.toLowerCase(), setProgress);
      stage = 'saving';
      setBusy(stage);
      await save({ [kind]: upload.id });
      setSaved(true);
    } catch (err) {
      setError(toApiError(err, stage === 'saving' ? 'settings.update' : 'media.uploadFinish').message);
    } finally {
      setBusy(null);
    }
  }

  async function remove() {
    setSaved(false);
    setError(null);
    setBusy('saving');
    try {
      await save({ [kind]: null });
      setSaved(true);
    } catch (err) {
      setError(toApiError(err, 'settings.update').message);
    } finally {
      setBusy(null);
    }
  }

  return (
    <div className={`profile-image profile-image--${kind}`} data-testid={`profile-${kind}`}>
      <div className="profile-image__preview">{src ? <img src={src} alt={label} /> : <span>{t.none}</span>}</div>
      <div className="profile-image__body">
        <p className="field__label" id={`${id}-label`}>
          {label}
        </p>
        <p className="field__hint">{kind === 'avatar' ? t.avatarHint : t.headerHint}</p>
        <input
          ref={input}
          type="file"
          accept={PROFILE_IMAGE_TYPES.join(',')}
          className="visually-hidden"
          aria-labelledby={`${id}-label`}
          tabIndex={-1}
          data-testid={`profile-${kind}-file`}
          onChange={(e) => {
            const file = e.target.files?.[0];
            e.target.value = '';
            if (file) void pick(file);
          }}
        />
        <div className="profile-image__actions">
          <button type="button" className="button button--small" disabled={busy !== null} onClick={() => input.current?.click()}>
            {src ? t.replace : t.choose}
          </button>
          {src && (
            <button type="button" className="button button--small" disabled={busy !== null} onClick={() => void remove()}>
              {t.remove}
            </button>
          )}
          <span className="form__saved" role="status">
            {busy === 'uploading' ? t.uploading : saved ? t.saved : ''}
          </span>
        </div>
        {busy === 'uploading' && <progress max={1} value={progress} aria-label={t.uploading} />}
        {error && (
          <p className="field__error" role="alert">
            {error}
          </p>
        )}
      </div>
    </div>
  );
}

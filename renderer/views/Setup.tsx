// First run: Tern does not know who the author is yet. A calm page asks for the two things that
// make the identity — the public base URL and the user name — and says why they matter and how
// the listener is reached through a tunnel. Everything else can wait for Settings.
import { useState, type FormEvent } from 'react';
import { toApiError, type ApiError } from '../api';
import { issueFor, TextField } from '../components/Field';
import { TernMark } from '../components/icons';
import { useSettingsStore, type SettingsView } from '../store/settings';
import { strings } from '../strings';

const t = strings.setup;

/** What the handle will look like, while the author types. */
function handlePreview(baseUrl: string, username: string): string | null {
  try {
    const host = new URL(baseUrl.trim()).host;
    const user = username.trim();
    return host && user ? `@${user}@${host}` : null;
  } catch {
    return null;
  }
}

export function Setup({ settings }: { settings: SettingsView }) {
  const save = useSettingsStore((state) => state.save);
  const [baseUrl, setBaseUrl] = useState(settings.baseUrl ?? '');
  const [username, setUsername] = useState(settings.username ?? '');
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const handle = handlePreview(baseUrl, username);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setSaving(true);
    setError(null);
    try {
      await save({ baseUrl: baseUrl.trim(), username: username.trim() });
    } catch (err) {
      setError(toApiError(err, 'settings.update'));
      setSaving(false);
    }
  }

  const baseUrlError = issueFor(error?.issues, 'baseUrl');
  const usernameError = issueFor(error?.issues, 'username');
  const generalError = error && !baseUrlError && !usernameError ? error.message : null;

  return (
    <main className="setup" id="main">
      <form className="setup__card card" onSubmit={submit} aria-labelledby="setup-title" noValidate>
        <div className="setup__brand">
          <TernMark />
        </div>
        <h1 id="setup-title">{t.title}</h1>
        <p className="setup__lede">{t.lede}</p>

        <TextField
          label={t.baseUrl}
          hint={t.baseUrlHint}
          error={baseUrlError && `${t.baseUrl} ${baseUrlError}.`}
          type="url"
          inputMode="url"
          placeholder={t.baseUrlPlaceholder}
          autoComplete="url"
          spellCheck={false}
          required
          autoFocus
          value={baseUrl}
          onChange={(e) => setBaseUrl(e.target.value)}
        />
        <TextField
          label={t.username}
          hint={t.usernameHint}
          error={usernameError && `${t.username} ${usernameError}.`}
          placeholder={t.usernamePlaceholder}
          autoComplete="username"
          autoCapitalize="off"
          spellCheck={false}
          required
          value={username}
          onChange={(e) => setUsername(e.target.value)}
        />

        <p className={handle ? 'setup__handle' : 'setup__handle setup__handle--empty'} aria-live="polite">
          {handle ? t.youWillBe(handle) : t.youWillBeUnknown}
        </p>

        <div className="setup__tunnel">
          <h2>{t.tunnelTitle}</h2>
          <p>{t.tunnelText}</p>
        </div>

        {generalError && (
          <p className="field__error" role="alert">
            {generalError}
          </p>
        )}
        <div className="setup__actions">
          <button type="submit" className="button button--primary" disabled={saving || !baseUrl.trim() || !username.trim()}>
            {saving ? t.saving : t.submit}
          </button>
          <p className="setup__later">{t.later}</p>
        </div>
      </form>
    </main>
  );
}

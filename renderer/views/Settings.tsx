// Settings: the author's profile and old accounts ("Also known as"), the identity (base URL + user name, with the warning that
// moving breaks follows), the listener, Work offline, and what to quote when asked (the key's
// fingerprint, the data folder). Each part saves on its own, and shows what Tern really saved.
import { useCallback, useEffect, useState, type FormEvent, type ReactNode } from 'react';
import { ApiError, call, toApiError } from '../api';
import { issueFor, Switch, TextArea, TextField } from '../components/Field';
import { AttentionIcon } from '../components/icons';
import { useConnectivityStore } from '../store/connectivity';
import { useSettingsStore, type SettingsChange, type SettingsView } from '../store/settings';
import { useStatusStore } from '../store/status';
import { formatDateTime, strings } from '../strings';
import type { Output } from '../../electron/core/ipc/contract';
import { RestoreBackup } from '../settings/RestoreBackup';
import { MoveFromMicroblogPub } from '../settings/MoveFromMicroblogPub';
import { TunnelSection } from '../settings/TunnelSection';
import { ProfileImages } from '../settings/ProfileImages';

const t = strings.settings;

export function Settings() {
  const settings = useSettingsStore((state) => state.settings);
  const dataDir = useStatusStore((state) => state.status?.dataDir ?? null);
  const mode = useStatusStore((state) => state.status?.mode ?? null);
  if (!settings) return <></>;
  return (
    <article className="view" aria-labelledby="settings-title">
      <header className="view__header">
        <div>
          <h1 id="settings-title">{t.title}</h1>
          <p className="view__lede">{t.lede}</p>
        </div>
      </header>
      <ProfileSection settings={settings} />
      <AliasesSection settings={settings} />
      <IdentitySection key={settings.baseUrl ?? ''} settings={settings} />
      <ListenerSection settings={settings} />
      <TunnelSection settings={settings} />
      <OfflineSection settings={settings} />
      {mode === 'desktop' && <OsNotificationsSection settings={settings} />}
      <BackupsSection />
      <ExportSection />
      <MoveFromMicroblogPub />
      <section className="section" aria-labelledby="settings-about-title">
        <div className="section__header">
          <h2 id="settings-about-title">{t.aboutTitle}</h2>
        </div>
        <dl className="card facts">
          <div className="facts__row">
            <dt>{t.fingerprint}</dt>
            <dd className="mono" data-testid="key-fingerprint">
              {settings.publicKeyFingerprint}
            </dd>
          </div>
          <div className="facts__row">
            <dt>{t.actorId}</dt>
            <dd className="mono">{settings.actorId ?? t.notSet}</dd>
          </div>
          <div className="facts__row">
            <dt>{t.dataFolder}</dt>
            <dd className="mono" data-testid="settings-data-dir">
              {dataDir ?? '…'}
            </dd>
          </div>
        </dl>
      </section>
    </article>
  );
}

/** Saving one part: the state of the request and the sentence to show after it. */
function useSave() {
  const save = useSettingsStore((state) => state.save);
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const [saved, setSaved] = useState(false);
  async function run(change: SettingsChange): Promise<boolean> {
    setSaving(true);
    setSaved(false);
    setError(null);
    try {
      await save(change);
      setSaved(true);
      return true;
    } catch (err) {
      setError(toApiError(err, 'settings.update'));
      return false;
    } finally {
      setSaving(false);
    }
  }
  return { run, saving, error, saved, setError };
}

interface PartProps {
  id: string;
  title: string;
  lede?: string;
  onSubmit: () => void;
  saving: boolean;
  saved: boolean;
  error: ApiError | null;
  fieldErrors: boolean;
  children: ReactNode;
  extra?: ReactNode;
}

function Part({ id, title, lede, onSubmit, saving, saved, error, fieldErrors, children, extra }: PartProps) {
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onSubmit();
  };
  return (
    <section className="section" aria-labelledby={`${id}-title`}>
      <div className="section__header">
        <h2 id={`${id}-title`}>{title}</h2>
      </div>
      <form className="card form" onSubmit={submit} noValidate aria-labelledby={`${id}-title`}>
        {lede && <p className="form__lede">{lede}</p>}
        {children}
        {error && !fieldErrors && (
          <p className="field__error" role="alert">
            {error.message}
          </p>
        )}
        {extra}
        <div className="form__actions">
          <span className="form__saved" role="status">
            {saved ? strings.saved : ''}
          </span>
          <button type="submit" className="button button--primary" disabled={saving}>
            {saving ? strings.saving : strings.save}
          </button>
        </div>
      </form>
    </section>
  );
}

function ProfileSection({ settings }: { settings: SettingsView }) {
  const [displayName, setDisplayName] = useState(settings.displayName);
  const [summary, setSummary] = useState(settings.summary);
  const [manual, setManual] = useState(settings.manuallyApprovesFollowers);
  const { run, saving, error, saved } = useSave();
  const nameError = issueFor(error?.issues, 'displayName');
  const summaryError = issueFor(error?.issues, 'summary');
  return (
    <Part
      id="settings-profile"
      title={t.profileTitle}
      lede={t.profileLede}
      onSubmit={() => void run({ displayName, summary, manuallyApprovesFollowers: manual })}
      saving={saving}
      saved={saved}
      error={error}
      fieldErrors={Boolean(nameError || summaryError)}
    >
      <ProfileImages settings={settings} />
      <TextField
        label={t.displayName}
        error={nameError && `${t.displayName} ${nameError}.`}
        value={displayName}
        maxLength={100}
        onChange={(e) => setDisplayName(e.target.value)}
      />
      <TextArea
        label={t.summary}
        hint={t.summaryHint}
        error={summaryError && `${t.summary} ${summaryError}.`}
        rows={4}
        value={summary}
        onChange={(e) => setSummary(e.target.value)}
      />
      <Switch label={t.manualApproval} hint={t.manualApprovalHint} checked={manual} onChange={setManual} />
    </Part>
  );
}

/** "Also known as": old accounts (handles or URLs) Tern resolves and publishes as alsoKnownAs. */
function AliasesSection({ settings }: { settings: SettingsView }) {
  const [text, setText] = useState(settings.alsoKnownAs.join('\n'));
  const { run, saving, error, saved } = useSave();
  const entries = text.split('\n').map((line) => line.trim()).filter((line) => line !== '');
  const issue = error?.issues?.find((i) => i.path.startsWith('alsoKnownAs'));
  return (
    <Part
      id="settings-aliases"
      title={t.aliasesTitle}
      lede={t.aliasesLede}
      onSubmit={() =>
        void run({ alsoKnownAs: entries }).then((ok) => {
          // Show what Tern resolved and saved: actor ids, one per line.
          if (ok) setText(useSettingsStore.getState().settings?.alsoKnownAs.join('\n') ?? '');
        })
      }
      saving={saving}
      saved={saved}
      error={error}
      fieldErrors={Boolean(issue)}
    >
      <TextArea
        label={t.aliases}
        hint={t.aliasesHint}
        error={issue && `${t.aliases} ${issue.message}.`}
        rows={3}
        value={text}
        placeholder={t.aliasesPlaceholder}
        onChange={(e) => setText(e.target.value)}
      />
      {settings.alsoKnownAs.length === 0 ? (
        <p className="section__empty">{t.aliasesNone}</p>
      ) : (
        <div>
          <p className="field__hint">{t.aliasesPublished}</p>
          <ul className="mono" data-testid="settings-aliases">
            {settings.alsoKnownAs.map((id) => (
              <li key={id}>{id}</li>
            ))}
          </ul>
        </div>
      )}
    </Part>
  );
}

function IdentitySection({ settings }: { settings: SettingsView }) {
  const [baseUrl, setBaseUrl] = useState(settings.baseUrl ?? '');
  const [username, setUsername] = useState(settings.username ?? '');
  const { run, saving, error, saved, setError } = useSave();
  const baseUrlError = issueFor(error?.issues, 'baseUrl');
  const usernameError = issueFor(error?.issues, 'username');
  const needsConfirmation = error?.code === 'conflict';
  const changed = baseUrl.trim() !== (settings.baseUrl ?? '') || username.trim() !== (settings.username ?? '');
  const save = (confirmIdentityChange: boolean) =>
    void run({ baseUrl: baseUrl.trim(), username: username.trim(), ...(confirmIdentityChange ? { confirmIdentityChange } : {}) });
  return (
    <Part
      id="settings-identity"
      title={t.identityTitle}
      onSubmit={() => save(false)}
      saving={saving}
      saved={saved}
      error={error}
      fieldErrors={Boolean(baseUrlError || usernameError)}
      extra={
        needsConfirmation && (
          <div className="form__confirm">
            <button type="button" className="button button--danger" onClick={() => save(true)} disabled={saving}>
              {t.changeAnyway}
            </button>
            <button type="button" className="button" onClick={() => setError(null)}>
              {strings.cancel}
            </button>
          </div>
        )
      }
    >
      <div className="notice notice--attention">
        <AttentionIcon />
        <div>
          <p className="notice__title">{t.identityWarningTitle}</p>
          <p className="notice__detail">{t.identityWarning}</p>
        </div>
      </div>
      <TextField
        label={t.baseUrl}
        hint={t.baseUrlHint}
        error={baseUrlError && `${t.baseUrl} ${baseUrlError}.`}
        type="url"
        spellCheck={false}
        value={baseUrl}
        onChange={(e) => setBaseUrl(e.target.value)}
      />
      <TextField
        label={t.username}
        error={usernameError && `${t.username} ${usernameError}.`}
        spellCheck={false}
        autoCapitalize="off"
        value={username}
        onChange={(e) => setUsername(e.target.value)}
      />
      <p className="form__note">{changed ? t.handleWillBe : t.handleIs(settings.handle ?? '')}</p>
    </Part>
  );
}

function ListenerSection({ settings }: { settings: SettingsView }) {
  const [enabled, setEnabled] = useState(settings.listener.enabled);
  const [port, setPort] = useState(String(settings.listener.port));
  const { run, saving, error, saved } = useSave();
  const portError = issueFor(error?.issues, 'listener.port');
  const status = settings.listenerStatus;
  const portNumber = Number(port);
  return (
    <Part
      id="settings-listener"
      title={t.listenerTitle}
      lede={t.listenerLede}
      onSubmit={() => void run({ listener: { enabled, port: Number.isInteger(portNumber) ? portNumber : -1 } })}
      saving={saving}
      saved={saved}
      error={error}
      fieldErrors={Boolean(portError)}
    >
      <p className={status.running ? 'listener-state listener-state--on' : 'listener-state'} data-testid="listener-state">
        <span className="status-dot" aria-hidden="true" />
        {status.running && status.url ? t.listening(status.url) : t.notListening}
      </p>
      {status.error && <p className="field__error">{status.error}</p>}
      <Switch label={t.listenerEnabled} hint={t.listenerEnabledHint(settings.baseUrl ?? '')} checked={enabled} onChange={setEnabled} />
      <TextField
        label={t.port}
        hint={t.portHint(settings.listener.host)}
        error={portError && `${t.port} ${portError}.`}
        inputMode="numeric"
        className="field__input field__input--short"
        value={port}
        onChange={(e) => setPort(e.target.value)}
      />
    </Part>
  );
}

function OfflineSection({ settings }: { settings: SettingsView }) {
  const setWorkOffline = useConnectivityStore((state) => state.setWorkOffline);
  const workOffline = useConnectivityStore((state) => state.view?.workOffline ?? settings.workOffline);
  const [error, setError] = useState<ApiError | null>(null);
  return (
    <section className="section" aria-labelledby="settings-offline-title">
      <div className="section__header">
        <h2 id="settings-offline-title">{t.offlineTitle}</h2>
      </div>
      <div className="card form">
        <Switch
          label={strings.connectivity.workOffline}
          hint={t.workOfflineHint}
          checked={workOffline}
          error={error?.message}
          onChange={(on) => {
            setError(null);
            setWorkOffline(on).catch((err: unknown) => setError(toApiError(err, 'settings.update')));
          }}
        />
      </div>
    </section>
  );
}

/** Desktop only: which notification types also become OS notifications (a type not listed is on). */
function OsNotificationsSection({ settings }: { settings: SettingsView }) {
  const save = useSettingsStore((state) => state.save);
  const [error, setError] = useState<ApiError | null>(null);
  const types = Object.keys(t.osNotificationTypes) as (keyof typeof t.osNotificationTypes)[];
  return (
    <section className="section" aria-labelledby="settings-os-notifications-title">
      <div className="section__header">
        <h2 id="settings-os-notifications-title">{t.osNotificationsTitle}</h2>
      </div>
      <div className="card form">
        <p className="form__lede">{t.osNotificationsLede}</p>
        {types.map((type) => (
          <Switch
            key={type}
            label={t.osNotificationTypes[type]}
            checked={settings.osNotifications[type] !== false}
            onChange={(on) => {
              setError(null);
              save({ osNotifications: { [type]: on } }).catch((err: unknown) => setError(toApiError(err, 'settings.update')));
            }}
          />
        ))}
        {error && (
          <p className="field__error" role="alert">
            {error.message}
          </p>
        )}
      </div>
    </section>
  );
}

/** Back up now, the archives in the backups folder, and restoring one. */
function BackupsSection() {
  const [list, setList] = useState<Output<'backup.list'> | null>(null);
  const [busy, setBusy] = useState(false);
  const [made, setMade] = useState<string | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const refresh = useCallback(async () => {
    try {
      setList(await call('backup.list', {}));
    } catch (err) {
      setError(toApiError(err, 'backup.list'));
    }
  }, []);
  useEffect(() => {
    void refresh();
  }, [refresh]);
  const backUp = async () => {
    setBusy(true);
    setError(null);
    setMade(null);
    try {
      setMade((await call('backup.create', {})).path);
      await refresh();
    } catch (err) {
      setError(toApiError(err, 'backup.create'));
    } finally {
      setBusy(false);
    }
  };
  return (
    <section className="section" aria-labelledby="settings-backups-title">
      <div className="section__header">
        <h2 id="settings-backups-title">{t.backupsTitle}</h2>
      </div>
      <div className="card form">
        <p className="form__lede">{t.backupsLede}</p>
        {list && list.backups.length === 0 && <p className="form__note">{t.noBackups}</p>}
        {list && list.backups.length > 0 && (
          <dl className="facts" data-testid="backup-list" aria-label={t.backupsIn(list.dir)}>
            {list.backups.map((b) => (
              <div className="facts__row" key={b.name}>
                <dt className="mono">{b.name}</dt>
                <dd>
                  {formatDateTime(new Date(b.createdAt))} · {t.backupSize(b.bytes)}
                </dd>
              </div>
            ))}
          </dl>
        )}
        {error && (
          <p className="field__error" role="alert">
            {error.message}
          </p>
        )}
        <div className="form__actions">
          <span className="form__saved mono" role="status" data-testid="backup-result">
            {made ? t.backedUp(made) : ''}
          </span>
          <button type="button" className="button button--primary" disabled={busy} onClick={() => void backUp()}>
            {busy ? t.backingUp : t.backUpNow}
          </button>
        </div>
        {list && <RestoreBackup backups={list.backups} />}
      </div>
    </section>
  );
}

/** Exports (the archive, following and followers as CSV) and importing follows from a CSV. */
function ExportSection() {
  const [busy, setBusy] = useState<'export.archive' | 'export.followingCsv' | 'export.followersCsv' | 'import.following' | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const [csv, setCsv] = useState('');
  const [result, setResult] = useState<Output<'import.following'> | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const runExport = async (channel: 'export.archive' | 'export.followingCsv' | 'export.followersCsv') => {
    setBusy(channel);
    setError(null);
    setSaved(null);
    try {
      setSaved((await call(channel, {})).path);
    } catch (err) {
      setError(toApiError(err, channel));
    } finally {
      setBusy(null);
    }
  };
  const runImport = async (event: FormEvent) => {
    event.preventDefault();
    setBusy('import.following');
    setError(null);
    setResult(null);
    try {
      setResult(await call('import.following', { csv }));
    } catch (err) {
      setError(toApiError(err, 'import.following'));
    } finally {
      setBusy(null);
    }
  };
  const exportButton = (channel: 'export.archive' | 'export.followingCsv' | 'export.followersCsv', label: string) => (
    <button type="button" className="button" disabled={busy !== null} onClick={() => void runExport(channel)}>
      {busy === channel ? t.exporting : label}
    </button>
  );
  return (
    <section className="section" aria-labelledby="settings-export-title" data-testid="export-section">
      <div className="section__header">
        <h2 id="settings-export-title">{t.exportTitle}</h2>
      </div>
      <form className="card form" onSubmit={(event) => void runImport(event)}>
        <p className="form__lede">{t.exportLede}</p>
        <div className="form__actions">
          <span className="form__saved mono" role="status" data-testid="export-result">
            {saved ? t.exported(saved) : ''}
          </span>
          {exportButton('export.archive', t.exportArchive)}
          {exportButton('export.followingCsv', t.exportFollowing)}
          {exportButton('export.followersCsv', t.exportFollowers)}
        </div>
        <TextArea label={t.importLabel} hint={t.importHint} value={csv} onChange={(event) => setCsv(event.target.value)} rows={5} data-testid="import-csv" />
        {error && (
          <p className="field__error" role="alert">
            {error.message}
          </p>
        )}
        {result && result.failed.length > 0 && (
          <ul className="form__note" data-testid="import-failures">
            {result.failed.map((f) => (
              <li key={`${f.line}-${f.text}`}>{t.importFailure(f.line, f.text, f.reason)}</li>
            ))}
          </ul>
        )}
        <div className="form__actions">
          <span className="form__saved" role="status" data-testid="import-result">
            {result ? t.imported(result.followed, result.skipped, result.failed.length) : ''}
          </span>
          <button type="submit" className="button button--primary" disabled={busy !== null || csv.trim() === ''}>
            {busy === 'import.following' ? t.importing : t.importFollows}
          </button>
        </div>
      </form>
    </section>
  );
}

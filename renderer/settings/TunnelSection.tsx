// Settings → Tunnel: how the listener is exposed. The author types the tunnel command (examples
// for cloudflared, ngrok, Tailscale Funnel), Tern runs it and shows its state, the public
// address it printed and its last output, and offers to make that address the base URL — with
// the identity warning Settings gives for any base URL change once people follow.
import { useCallback, useEffect, useState } from 'react';
import { ApiError, call, toApiError } from '../api';
import { Switch, TextField } from '../components/Field';
import type { Output } from '../../electron/core/ipc/contract';
import { useSettingsStore, type SettingsView } from '../store/settings';
import { strings } from '../strings';
import { dataStrings } from './strings';

const t = dataStrings.tunnel;
/** How often the state is asked while the tunnel starts (its address comes a few seconds later). */
const POLL_MS = 1500;

type TunnelStatus = Output<'tunnel.status'>;

export function TunnelSection({ settings }: { settings: SettingsView }) {
  const save = useSettingsStore((state) => state.save);
  const [command, setCommand] = useState(settings.tunnel.command || t.examples(settings.listener.port)[0]!.command);
  const [status, setStatus] = useState<TunnelStatus | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const [identityError, setIdentityError] = useState<ApiError | null>(null);
  const [baseUrlSet, setBaseUrlSet] = useState<string | null>(null);

  const refresh = useCallback(async () => {
    try {
      setStatus(await call('tunnel.status', {}));
    } catch (err) {
      setError(toApiError(err, 'tunnel.status'));
    }
  }, []);
  useEffect(() => {
    void refresh();
  }, [refresh]);
  const starting = status?.state === 'starting';
  useEffect(() => {
    if (!starting) return;
    const timer = setInterval(() => void refresh(), POLL_MS);
    return () => clearInterval(timer);
  }, [starting, refresh]);

  const run = async (channel: 'tunnel.start' | 'tunnel.stop') => {
    setBusy(true);
    setError(null);
    setBaseUrlSet(null);
    try {
      setStatus(channel === 'tunnel.start' ? await call('tunnel.start', { command }) : await call('tunnel.stop', {}));
    } catch (err) {
      setError(toApiError(err, channel));
    } finally {
      setBusy(false);
    }
  };
  const useAsBaseUrl = async (url: string, confirmIdentityChange: boolean) => {
    setIdentityError(null);
    try {
      await save({ baseUrl: url, ...(confirmIdentityChange ? { confirmIdentityChange } : {}) });
      setBaseUrlSet(url);
    } catch (err) {
      setIdentityError(toApiError(err, 'settings.update'));
    }
  };

  const running = status?.state === 'running' || status?.state === 'starting';
  const publicUrl = status?.state === 'running' ? status.publicUrl : null;
  const stateText =
    status === null ? '…' : status.state === 'running' && status.publicUrl ? t.state.running(status.publicUrl) : status.state === 'running' ? t.state.starting : t.state[status.state];
  return (
    <section className="section" aria-labelledby="settings-tunnel-title" data-testid="tunnel-section">
      <div className="section__header">
        <h2 id="settings-tunnel-title">{t.title}</h2>
      </div>
      <div className="card form">
        <p className="form__lede">{t.lede}</p>
        <ul className="form__note">
          {t.examples(settings.listener.port).map((example) => (
            <li key={example.name}>
              {example.name}: <code className="mono">{example.command}</code>
            </li>
          ))}
        </ul>
        <p className="form__note">{t.stableNote}</p>
        {!settings.listener.enabled && <p className="form__note">{t.listenerOff}</p>}
        <TextField
          label={t.command}
          hint={t.commandHint}
          error={error?.code === 'bad_input' ? error.message : undefined}
          spellCheck={false}
          autoCapitalize="off"
          className="field__input mono"
          value={command}
          onChange={(e) => setCommand(e.target.value)}
        />
        <Switch
          label={t.startWithTern}
          hint={t.startWithTernHint}
          checked={settings.tunnel.startWithTern}
          onChange={(on) => {
            setError(null);
            save({ tunnel: { startWithTern: on, ...(command.trim() ? { command: command.trim() } : {}) } }).catch((err: unknown) =>
              setError(toApiError(err, 'settings.update')),
            );
          }}
        />
        <Switch
          label={t.behindProxy}
          hint={t.behindProxyHint}
          checked={settings.listener.behindProxy}
          onChange={(on) => {
            setError(null);
            save({ listener: { behindProxy: on } }).catch((err: unknown) => setError(toApiError(err, 'settings.update')));
          }}
        />
        <p className={running ? 'listener-state listener-state--on' : 'listener-state'} data-testid="tunnel-state">
          <span className="status-dot" aria-hidden="true" />
          {stateText}
        </p>
        {status?.error && <p className="field__error">{status.error}</p>}
        {error && error.code !== 'bad_input' && (
          <p className="field__error" role="alert">
            {error.message}
          </p>
        )}
        {status && status.output.length > 0 && (
          <details>
            <summary>{t.output}</summary>
            <pre className="mono form__note form__output" data-testid="tunnel-output">
              {status.output.join('\n')}
            </pre>
          </details>
        )}
        {publicUrl && publicUrl === settings.baseUrl && <p className="form__note">{t.isBaseUrl}</p>}
        {publicUrl && publicUrl !== settings.baseUrl && (
          <>
            {identityError && (
              <p className="field__error" role="alert">
                {identityError.message}
              </p>
            )}
            <div className="form__confirm">
              <button type="button" className="button" onClick={() => void useAsBaseUrl(publicUrl, false)}>
                {t.useAsBaseUrl(publicUrl)}
              </button>
              {identityError?.code === 'conflict' && (
                <button type="button" className="button button--danger" onClick={() => void useAsBaseUrl(publicUrl, true)}>
                  {strings.settings.changeAnyway}
                </button>
              )}
            </div>
          </>
        )}
        <div className="form__actions">
          <span className="form__saved" role="status">
            {baseUrlSet ? t.baseUrlSet(baseUrlSet) : ''}
          </span>
          {running && (
            <button type="button" className="button" disabled={busy} onClick={() => void run('tunnel.stop')}>
              {t.stop}
            </button>
          )}
          <button type="button" className="button button--primary" disabled={busy || command.trim() === ''} onClick={() => void run('tunnel.start')}>
            {busy ? t.starting : running ? t.restart : t.start}
          </button>
        </div>
      </div>
    </section>
  );
}

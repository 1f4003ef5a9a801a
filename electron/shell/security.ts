// Window hardening, in one place so it can be read and tested: the webPreferences every
// window gets, and the rules for navigation, new windows, permissions and external links.
import { shell, type Session, type WebContents, type WebPreferences } from 'electron';
import { APP_ORIGIN } from './protocol';

export function secureWebPreferences(preload: string): WebPreferences {
  return {
    preload,
    sandbox: true,
    contextIsolation: true,
    nodeIntegration: false,
    nodeIntegrationInWorker: false,
    nodeIntegrationInSubFrames: false,
    webSecurity: true,
    allowRunningInsecureContent: false,
    experimentalFeatures: false,
    webviewTag: false,
    navigateOnDragDrop: false,
    spellcheck: true,
  };
}

/** Only parsed http(s) URLs leave the app, to the OS browser. */
export function externalUrl(raw: string): string | null {
  try {
    const url = new URL(raw);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : null;
  } catch {
    return null;
  }
}

/** Is this frame URL our app (and nothing else)? */
export function isAppUrl(raw: string | undefined): boolean {
  if (!raw) return false;
  try {
    return new URL(raw).origin === APP_ORIGIN;
  } catch {
    return false;
  }
}

export function hardenContents(contents: WebContents): void {
  contents.on('will-navigate', (event) => event.preventDefault());
  contents.on('will-redirect', (event) => event.preventDefault());
  contents.on('will-attach-webview', (event) => event.preventDefault());
  contents.setWindowOpenHandler(({ url }) => {
    const external = externalUrl(url);
    if (external) void shell.openExternal(external);
    return { action: 'deny' };
  });
}

export function hardenSession(session: Session): void {
  session.setPermissionRequestHandler((_contents, permission, callback) => callback(permission === 'notifications'));
  session.setPermissionCheckHandler((_contents, permission) => permission === 'notifications');
}

// Applies the window's security rules (policy/web-security.ts) to Electron: webPreferences,
// navigation, redirects, webviews, new windows, external links and permission requests.
import { shell, type Session, type WebContents, type WebPreferences } from 'electron';
import { allowNavigation, allowPermission, secureWebPreferences, windowOpenDecision } from './policy/web-security';

export { externalUrl, isAppUrl } from './policy/app-url';

export function webPreferencesFor(preload: string): WebPreferences {
  // Typed as Electron's own so a renamed or removed option fails to compile.
  const preferences: WebPreferences = secureWebPreferences(preload, process.platform);
  return preferences;
}

export function hardenContents(contents: WebContents): void {
  const refuse = (event: { preventDefault(): void }, url: string) => {
    if (!allowNavigation(url)) event.preventDefault();
  };
  contents.on('will-navigate', (event) => refuse(event, event.url));
  contents.on('will-frame-navigate', (event) => refuse(event, event.url));
  contents.on('will-redirect', (event) => refuse(event, event.url));
  contents.on('will-attach-webview', (event) => event.preventDefault());
  contents.setWindowOpenHandler(({ url }) => {
    const decision = windowOpenDecision(url);
    if (decision.openExternally) void shell.openExternal(decision.openExternally);
    return { action: decision.action };
  });
}

export function hardenSession(session: Session): void {
  session.setPermissionRequestHandler((contents, permission, callback, details) =>
    callback(allowPermission(permission, details.requestingUrl ?? contents?.getURL())),
  );
  session.setPermissionCheckHandler((_contents, permission, requestingOrigin) => allowPermission(permission, requestingOrigin));
  // Nothing is downloaded by the window.
  session.on('will-download', (event) => event.preventDefault());
}

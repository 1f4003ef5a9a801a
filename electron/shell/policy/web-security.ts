// The window's security rules as plain data and predicates: the webPreferences every window
// gets, the CSP check, and the decisions for navigation, new windows, permissions and IPC
// senders. shell/security.ts and shell/ipc.ts apply them to Electron; these are what the tests
// read. Pure: no electron import.
import { externalUrl, isAppUrl } from './app-url';

/** The subset of Electron's WebPreferences Tern sets; shell/security.ts checks it is assignable. */
export interface HardenedWebPreferences {
  preload: string;
  sandbox: true;
  contextIsolation: true;
  nodeIntegration: false;
  nodeIntegrationInWorker: false;
  nodeIntegrationInSubFrames: false;
  webSecurity: true;
  allowRunningInsecureContent: false;
  experimentalFeatures: false;
  webviewTag: false;
  navigateOnDragDrop: false;
  safeDialogs: true;
  spellcheck: boolean;
}

/** Spellcheck only where the OS checks spelling itself (macOS). On Linux and Windows Chromium's
 * Hunspell dictionaries are downloaded from Google's CDN, telling Google when and in which
 * languages the author writes; Tern ships no dictionaries (Electron's assets cannot be fetched
 * where it is built), so there it stays off. */
export function spellcheckOn(platform: NodeJS.Platform): boolean {
  return platform === 'darwin';
}

export function secureWebPreferences(preload: string, platform: NodeJS.Platform): HardenedWebPreferences {
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
    safeDialogs: true,
    spellcheck: spellcheckOn(platform),
  };
}

/** Parses a CSP header into directive → sources (lower-cased names). */
export function parseCsp(csp: string): Map<string, string[]> {
  const directives = new Map<string, string[]>();
  for (const part of csp.split(';')) {
    const [name, ...sources] = part.trim().split(/\s+/);
    if (name && !directives.has(name.toLowerCase())) directives.set(name.toLowerCase(), sources);
  }
  return directives;
}

const FORBIDDEN_SCRIPT_SOURCES = ["'unsafe-inline'", "'unsafe-eval'", "'unsafe-hashes'", "'wasm-unsafe-eval'", 'data:', 'blob:', '*', 'http:', 'https:'];

/** What makes a CSP not strict enough for Tern's window; [] when it is. */
export function cspProblems(csp: string): string[] {
  const d = parseCsp(csp);
  const problems: string[] = [];
  const fallback = d.get('default-src');
  if (!fallback) problems.push('no default-src');
  for (const directive of ['script-src', 'style-src', 'default-src', 'connect-src', 'img-src']) {
    const sources = d.get(directive) ?? (directive === 'default-src' ? [] : fallback ?? []);
    for (const source of sources) {
      if (FORBIDDEN_SCRIPT_SOURCES.includes(source.toLowerCase()) && !(directive === 'img-src' && /^(data|blob):$/.test(source))) {
        problems.push(`${directive} allows ${source}`);
      }
    }
  }
  if ((d.get('object-src') ?? fallback)?.join(' ') !== "'none'") problems.push("object-src is not 'none'");
  if (d.get('base-uri')?.join(' ') !== "'none'") problems.push("base-uri is not 'none'");
  if (d.get('frame-ancestors')?.join(' ') !== "'none'") problems.push("frame-ancestors is not 'none'");
  return problems;
}

/** The window never navigates away from the app: every navigation or redirect is refused
 * (in-app routes change only the #hash, which is not a navigation). */
export function allowNavigation(_url: string): false {
  return false;
}

/** A new window is never opened; an http(s) link goes to the OS browser instead. */
export function windowOpenDecision(url: string): { action: 'deny'; openExternally: string | null } {
  return { action: 'deny', openExternally: externalUrl(url) };
}

/** Only notifications are granted, and only to the app's own pages. */
export function allowPermission(permission: string, requestingUrl: string | undefined): boolean {
  return permission === 'notifications' && isAppUrl(requestingUrl);
}

/** Who sent an IPC message, as shell/ipc.ts reads it off the event. */
export interface IpcSenderFacts {
  /** The sender is the main window's webContents (compared by identity or id). */
  isMainWindow: boolean;
  /** The frame is that window's main frame (not an iframe). */
  isMainFrame: boolean;
  frameUrl: string | undefined;
}

/** An IPC call is served only from our own window's main frame showing app://. */
export function isTrustedSender(sender: IpcSenderFacts): boolean {
  return sender.isMainWindow && sender.isMainFrame && isAppUrl(sender.frameUrl);
}

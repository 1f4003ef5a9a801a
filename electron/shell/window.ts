// The main window: created hardened, at the size and place it had last time (clamped to the
// displays there are now), loads the renderer from app://, and reports its bounds as they
// change so main.ts can remember them.
import { BrowserWindow, screen } from 'electron';
import { appRoute } from './policy/app-url';
import { captureWindowState, MIN_SIZE, restoreWindowState, type WindowState } from './policy/window-state';
import { hardenContents, webPreferencesFor } from './security';

const SAVE_DELAY_MS = 500;

export function createMainWindow(options: {
  preload: string;
  saved: WindowState | null;
  onState: (state: WindowState) => void;
}): BrowserWindow {
  const primary = screen.getPrimaryDisplay();
  const workAreas = [primary, ...screen.getAllDisplays().filter((d) => d.id !== primary.id)].map((d) => d.workArea);
  const place = restoreWindowState(options.saved, workAreas);
  const window = new BrowserWindow({
    ...(place.bounds ?? {}),
    minWidth: MIN_SIZE.width,
    minHeight: MIN_SIZE.height,
    title: 'Tern',
    show: false,
    backgroundColor: '#ffffff',
    webPreferences: webPreferencesFor(options.preload),
  });
  hardenContents(window.webContents);
  window.once('ready-to-show', () => {
    if (place.maximized) window.maximize();
    window.show();
  });

  let timer: ReturnType<typeof setTimeout> | null = null;
  const save = () => {
    if (timer) clearTimeout(timer);
    timer = null;
    if (!window.isDestroyed() && !window.isMinimized() && !window.isFullScreen()) {
      options.onState(captureWindowState(window.getNormalBounds(), window.isMaximized()));
    }
  };
  const later = () => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(save, SAVE_DELAY_MS);
  };
  window.on('resize', later);
  window.on('move', later);
  window.on('maximize', save);
  window.on('unmaximize', save);
  window.on('close', save);
  void window.loadURL(appRoute('#/stream'));
  return window;
}

/** Shows the window (restoring it when minimized) and, when given, opens an in-app route. */
export function showWindow(window: BrowserWindow, route?: string): void {
  if (route) void window.loadURL(appRoute(route));
  if (window.isMinimized()) window.restore();
  window.show();
  window.focus();
}

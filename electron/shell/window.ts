// The main window: created hardened, loads the renderer from app://.
import { BrowserWindow } from 'electron';
import { APP_ORIGIN } from './protocol';
import { hardenContents, secureWebPreferences } from './security';

export function createMainWindow(preload: string): BrowserWindow {
  const window = new BrowserWindow({
    width: 1100,
    height: 760,
    minWidth: 640,
    minHeight: 480,
    title: 'Tern',
    show: false,
    webPreferences: secureWebPreferences(preload),
  });
  hardenContents(window.webContents);
  window.once('ready-to-show', () => window.show());
  void window.loadURL(`${APP_ORIGIN}/index.html`);
  return window;
}

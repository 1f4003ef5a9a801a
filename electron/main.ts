// Electron main process: the thin shell. Opens the core on the data folder, serves the
// renderer over app://, wires IPC with sender checks, and keeps one instance.
import { app, BrowserWindow, dialog, session } from 'electron';
import { join } from 'node:path';
import { openCore, type Core } from './core';
import { createHandlers } from './ipc/handlers';
import { defaultDataDir } from './paths';
import { feedConnectivity } from './shell/connectivity';
import { registerIpc } from './shell/ipc';
import { handleAppProtocol, registerAppScheme } from './shell/protocol';
import { hardenSession } from './shell/security';
import { createMainWindow } from './shell/window';

app.enableSandbox();
registerAppScheme();

let core: Core | null = null;
let mainWindow: BrowserWindow | null = null;
let stopConnectivity: (() => void) | null = null;

if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  app.on('second-instance', () => {
    if (!mainWindow) return;
    if (mainWindow.isMinimized()) mainWindow.restore();
    mainWindow.focus();
  });
  app.on('window-all-closed', () => app.quit());
  // Quit stops the loops first: a delivery in flight may finish (5 s) or is left due — never
  // lost, never half-recorded — and only then is the database closed.
  let stopped = false;
  app.on('before-quit', (event) => {
    if (stopped || !core) return;
    event.preventDefault();
    const open = core;
    void Promise.allSettled([open.loops.delivery.stop({ graceMs: 5_000 }), open.loops.inbox.stop(), open.listener.stop()]).then(() => {
      stopConnectivity?.();
      open.close();
      stopped = true;
      app.quit();
    });
  });
  app.whenReady().then(start, (error: unknown) => fail(error));
}

async function start(): Promise<void> {
  try {
    core = await openCore({ dataDir: process.env.TERN_DATA_DIR ?? defaultDataDir(), mode: 'desktop', log: (l) => console.log(l) });
  } catch (error) {
    fail(error);
    return;
  }
  hardenSession(session.defaultSession);
  handleAppProtocol(join(__dirname, '..', 'renderer'));
  registerIpc(createHandlers(core), () => mainWindow?.webContents ?? null);
  stopConnectivity = feedConnectivity(core.connectivity);
  core.loops.inbox.start();
  core.loops.delivery.start();
  mainWindow = createMainWindow(join(__dirname, 'preload.cjs'));
  mainWindow.on('closed', () => (mainWindow = null));
}

function fail(error: unknown): void {
  dialog.showErrorBox('Tern could not start', error instanceof Error ? error.message : String(error));
  app.exit(1);
}

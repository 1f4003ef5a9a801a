// Electron main process: the thin shell. Opens the core on the data folder, serves the
// renderer over app://, wires IPC with sender checks, and keeps one instance. Lives in the
// tray when its window is closed; Quit (tray or menu) stops the loops before the database
// closes. Every decision here is made by plain modules under shell/ (policy/, *-controller,
// *-watch, shutdown) that are tested in Node; this file only connects them to Electron.
import { app, BrowserWindow, dialog, powerMonitor, session } from 'electron';
import { join } from 'node:path';
import { openCore, type Core } from './core/core';
import { createHandlers } from './core/ipc/handlers';
import { createTunnelRunner } from './core/tunnel/runner';
import { createBackupScheduler } from './core/data/backup-scheduler';
import { defaultDataDir } from './core/paths';
import { electronNet } from './shell/connectivity';
import { feedConnectivity } from './shell/connectivity-feed';
import { registerIpc } from './shell/ipc';
import { SHELL_EVENTS } from './shell/events';
import { createNotificationWatch, type NotificationWatch } from './shell/notification-watch';
import { electronNotifier } from './shell/notifications';
import { CLOSE_HINT, decideClose } from './shell/policy/close-to-tray';
import type { NotifierPort } from './shell/ports';
import { handleAppProtocol, registerAppScheme } from './shell/protocol';
import { createUiMediaHandler } from './core/media/ui-routes';
import { waitingToSend } from './core/delivery/status';
import { hardenSession } from './shell/security';
import { createShellStateStore, type ShellStateStore } from './shell/shell-state';
import { createShutdown } from './shell/shutdown';
import { electronTray } from './shell/tray';
import { createTrayController, type TrayController } from './shell/tray-controller';
import { createMainWindow, showWindow } from './shell/window';

app.enableSandbox();
registerAppScheme();

let core: Core | null = null;
let mainWindow: BrowserWindow | null = null;
let tray: TrayController | null = null;
let shellState: ShellStateStore | null = null;
let notifier: NotifierPort | null = null;
let quitting = false;
let shutdown: (() => Promise<void>) | null = null;
const pageNetworkHints = new Set<() => void>();

if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  // A second launch focuses the window we have (or reopens it from the tray).
  app.on('second-instance', () => openWindow());
  app.on('activate', () => openWindow());
  // With a tray the window only hides; without one, closing it is quitting.
  app.on('window-all-closed', () => {
    if (!tray) app.quit();
  });
  // Quit stops the loops first: a delivery in flight may finish (5 s) or is left due — never
  // lost, never half-recorded — and only then is the database closed.
  let stopped = false;
  app.on('before-quit', (event) => {
    quitting = true;
    if (stopped || !shutdown) return;
    event.preventDefault();
    void shutdown().finally(() => {
      stopped = true;
      app.quit();
    });
  });
  app.whenReady().then(start, (error: unknown) => fail(error));
}

async function start(): Promise<void> {
  const dataDir = process.env.TERN_DATA_DIR ?? defaultDataDir();
  let open: Core;
  try {
    // The inbox processor and the delivery loop on their own threads: a burst of activities or a
    // fan-out to hundreds of servers never freezes the window.
    open = await openCore({ dataDir, mode: 'desktop', log: (l) => console.log(l), inboxWorker: true, deliveryWorker: true });
  } catch (error) {
    fail(error);
    return;
  }
  core = open;
  shellState = createShellStateStore(open.paths.dir);
  hardenSession(session.defaultSession);
  handleAppProtocol(join(__dirname, '..', 'renderer'), createUiMediaHandler(open));
  // The author's tunnel runs as Tern's child, and stops when Tern quits.
  const tunnel = createTunnelRunner({ log: (line) => console.log(line) });
  const { command: tunnelCommand, startWithTern } = open.settings.get().tunnel;
  if (startWithTern && tunnelCommand !== '') {
    tunnel.start(tunnelCommand).catch((error: unknown) => console.log(`tunnel not started: ${(error as Error).message}`));
  }
  const unregisterIpc = registerIpc(createHandlers(open, { host: { reopen: reopenByRelaunch }, tunnel }), () => mainWindow?.webContents ?? null, () =>
    pageNetworkHints.forEach((hint) => hint()),
  );
  const stopConnectivity = feedConnectivity(open.connectivity, electronNet({
    subscribe(listener) {
      pageNetworkHints.add(listener);
      return () => pageNetworkHints.delete(listener);
    },
  }));

  notifier = electronNotifier();
  tray = startTray(open);
  const watch: NotificationWatch = createNotificationWatch({
    list: (limit) => open.services.notifications.list({ limit }).items,
    prefs: () => open.settings.get().osNotifications,
    notifier,
    open: (route) => openWindow(route),
    afterCheck: () => tray?.refresh(),
  });
  // Woken from sleep: overdue deliveries are spread out and the first network failures spend no
  // try (delivery/loop.ts; the loop also notices a wake by itself from its clocks).
  // A quote that turned unanswered during the sleep is told now (federation/quote-deadlines.ts).
  const onResume = () => {
    open.loops.delivery.resumed();
    open.loops.quoteDeadlines.rearm();
  };
  powerMonitor.on('resume', onResume);
  // Rows the inbox processor (on its worker thread) finished: look for new notifications soon,
  // once for a whole burst of them.
  let lookSoon: NodeJS.Timeout | null = null;
  const unsubscribes = [
    open.connectivity.onChange(() => tray?.refresh()),
    open.settings.onChange(() => tray?.refresh()),
    () => powerMonitor.off('resume', onResume),
    open.onInboxRowsDone(() => {
      lookSoon ??= setTimeout(() => {
        lookSoon = null;
        watch.check();
      }, 500);
    }),
    () => lookSoon && clearTimeout(lookSoon),
    // What the window shows changed: told to its page (the kinds only; it asks again by IPC).
    open.changes.subscribe((kinds) => {
      const page = mainWindow?.webContents;
      if (page && !page.isDestroyed()) page.send(SHELL_EVENTS.changed, kinds);
    }),
  ];

  // The automatic daily backup (checked at start and hourly; the newest seven are kept).
  const backups = createBackupScheduler({ core: open, log: (line) => console.log(line) });
  shutdown = createShutdown({
    delivery: open.loops.delivery,
    inbox: open.loops.inbox,
    listener: open.listener,
    others: [open.loops.previews],
    log: (line) => console.log(line),
    beforeClose: () => {
      void tunnel.stop();
      void backups.stop();
      watch.stop();
      unsubscribes.forEach((u) => u());
      stopConnectivity();
      unregisterIpc();
      tray?.destroy();
      tray = null;
    },
    close: () => open.close(),
  });

  open.loops.inbox.start();
  open.loops.delivery.start();
  open.loops.polls.start();
  open.loops.search.start();
  open.loops.previews.start();
  backups.start();
  watch.start();
  openWindow();
}

/**
 * Restoring a backup or moving in from microblog.pub swaps the data folder's files, which needs
 * the core closed: Tern shuts down in order (as on Quit), the swap runs, and the app relaunches
 * on the new data. A swap that fails leaves the old files in place; the error is shown and the
 * app relaunches on them. (Headless mode reopens its core in place instead: core-host.ts.)
 */
async function reopenByRelaunch<T>(swap: (dataDir: string) => Promise<T>): Promise<T> {
  if (!core || !shutdown) throw new Error('Tern is not running yet.');
  const dataDir = core.paths.dir;
  await shutdown();
  try {
    return await swap(dataDir);
  } catch (error) {
    dialog.showErrorBox('Tern left your data as it was', error instanceof Error ? error.message : String(error));
    throw error;
  } finally {
    app.relaunch();
    app.exit(0);
  }
}

function startTray(open: Core): TrayController | null {
  try {
    return createTrayController({
      port: electronTray(),
      state: () => ({ ...open.connectivity.state(), unread: open.services.notifications.unreadCount(), waiting: waitingToSend(open.db) }),
      actions: {
        open: () => openWindow(),
        compose: () => openWindow('#/compose'),
        pause: () => open.settings.update({ workOffline: true }),
        resume: () => open.settings.update({ workOffline: false }),
        sync: () => {
          open.connectivity.recheck();
          open.loops.delivery.wake();
          open.loops.inbox.wake();
          tray?.refresh();
        },
        quit: () => app.quit(),
      },
    });
  } catch (error) {
    // Some Linux desktops have no tray: Tern then quits when its window closes.
    console.log(`no tray: ${(error as Error).message}`);
    return null;
  }
}

function openWindow(route?: string): void {
  if (!core || !shellState) return;
  if (mainWindow && !mainWindow.isDestroyed()) {
    showWindow(mainWindow, route);
    return;
  }
  const state = shellState;
  const window = createMainWindow({
    preload: join(__dirname, 'preload.cjs'),
    saved: state.get().window,
    onState: (bounds) => state.update({ window: bounds }),
  });
  if (route) window.once('ready-to-show', () => showWindow(window, route));
  window.on('close', (event) => {
    const decision = decideClose({ quitting, hasTray: tray !== null, hintShown: state.get().closeHintShown });
    if (decision.kind === 'close') return;
    event.preventDefault();
    window.hide();
    if (decision.showHint) {
      state.update({ closeHintShown: true });
      if (notifier?.isSupported()) notifier.show({ ...CLOSE_HINT, onClick: () => openWindow() });
      else void dialog.showMessageBox({ type: 'info', title: CLOSE_HINT.title, message: CLOSE_HINT.title, detail: CLOSE_HINT.body });
    }
  });
  window.on('closed', () => {
    if (mainWindow === window) mainWindow = null;
  });
  mainWindow = window;
}

function fail(error: unknown): void {
  dialog.showErrorBox('Tern could not start', error instanceof Error ? error.message : String(error));
  app.exit(1);
}

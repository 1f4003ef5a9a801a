// The preload: exposes `window.tern`, one method per IPC channel, and nothing else of Node or
// Electron. It runs sandboxed, so it bundles everything it needs and requires only electron.
// It also passes the page's online/offline events to main as a hint to look at the network
// again (main never trusts the value, only re-reads net.isOnline()).
import { contextBridge, ipcRenderer } from 'electron';
import { CHANNEL_NAMES } from './core/ipc/channels';
import { SHELL_EVENTS } from './shell/events';

const bridge = Object.fromEntries(
  CHANNEL_NAMES.map((channel) => [channel, (input: unknown) => ipcRenderer.invoke(channel, input)]),
);
contextBridge.exposeInMainWorld('tern', bridge);

for (const event of ['online', 'offline']) window.addEventListener(event, () => ipcRenderer.send(SHELL_EVENTS.networkHint));

// The preload: exposes `window.tern`, one method per IPC channel, and nothing else of Node or
// Electron. It runs sandboxed, so it bundles everything it needs and requires only electron.
import { contextBridge, ipcRenderer } from 'electron';
import { CHANNEL_NAMES } from './ipc/channels';

const bridge = Object.fromEntries(
  CHANNEL_NAMES.map((channel) => [channel, (input: unknown) => ipcRenderer.invoke(channel, input)]),
);
contextBridge.exposeInMainWorld('tern', bridge);

// The preload: exposes `window.tern`, one method per IPC channel, and nothing else of Node or
// Electron. It runs sandboxed, so it bundles everything it needs and requires only electron.
// It also passes the page's online/offline events to main as a hint to look at the network
// again (main never trusts the value, only re-reads net.isOnline()), and main's change hints to
// the page (`window.ternChanges`): the kinds only, read again here; never Electron's event.
import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import { CHANNEL_NAMES } from './core/ipc/channels';
import { parseChangeKinds, type ChangeKind } from './core/ipc/changes-contract';
import { SHELL_EVENTS } from './shell/events';

const bridge = Object.fromEntries(
  CHANNEL_NAMES.map((channel) => [channel, (input: unknown) => ipcRenderer.invoke(channel, input)]),
);
contextBridge.exposeInMainWorld('tern', bridge);
contextBridge.exposeInMainWorld('ternChanges', {
  subscribe(listener: (kinds: ChangeKind[]) => void): () => void {
    if (typeof listener !== 'function') return () => {};
    const handler = (_event: IpcRendererEvent, kinds: unknown) => {
      const known = parseChangeKinds(kinds);
      if (known.length > 0) listener(known);
    };
    ipcRenderer.on(SHELL_EVENTS.changed, handler);
    return () => void ipcRenderer.removeListener(SHELL_EVENTS.changed, handler);
  },
});

for (const event of ['online', 'offline']) window.addEventListener(event, () => ipcRenderer.send(SHELL_EVENTS.networkHint));

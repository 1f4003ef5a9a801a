// Wires the IPC contract to Electron's ipcMain: one handler per channel, each checking that the
// call comes from our own window's main frame on app:// (policy/web-security.ts
// isTrustedSender) before dispatching (which validates the input with the channel's zod schema).
// The one shell event the page sends (a network hint) is checked the same way.
import { ipcMain, type IpcMainEvent, type IpcMainInvokeEvent, type WebContents } from 'electron';
import { CHANNELS, type IpcResult } from '../core/ipc/contract';
import { dispatch, type Handlers } from '../core/ipc/handlers';
import { SHELL_EVENTS } from './events';
import { isTrustedSender } from './policy/web-security';

function trustedEvent(event: IpcMainEvent | IpcMainInvokeEvent, trusted: () => WebContents | null): boolean {
  const window = trusted();
  const frame = event.senderFrame;
  return isTrustedSender({
    isMainWindow: window !== null && event.sender === window,
    isMainFrame: window !== null && frame !== null && frame === window.mainFrame,
    frameUrl: frame?.url,
  });
}

export function registerIpc(handlers: Handlers, trusted: () => WebContents | null, onNetworkHint: () => void): () => void {
  for (const channel of CHANNELS) {
    ipcMain.handle(channel, async (event: IpcMainInvokeEvent, input: unknown): Promise<IpcResult<unknown>> => {
      if (!trustedEvent(event, trusted)) {
        return { ok: false, error: { code: 'forbidden', message: 'This call did not come from Tern’s own window.' } };
      }
      return dispatch(handlers, channel, input);
    });
  }
  // The page's online/offline events are only a hint to look again: the value is never trusted.
  const hint = (event: IpcMainEvent) => {
    if (trustedEvent(event, trusted)) onNetworkHint();
  };
  ipcMain.on(SHELL_EVENTS.networkHint, hint);
  return () => {
    CHANNELS.forEach((channel) => ipcMain.removeHandler(channel));
    ipcMain.off(SHELL_EVENTS.networkHint, hint);
  };
}

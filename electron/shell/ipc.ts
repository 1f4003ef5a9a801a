// Wires the IPC contract to Electron's ipcMain: one handler per channel, each checking that the
// call comes from our own window's main frame on app:// before dispatching (which validates
// the input with the channel's zod schema).
import { ipcMain, type IpcMainInvokeEvent, type WebContents } from 'electron';
import { CHANNELS, type IpcResult } from '../ipc/contract';
import { dispatch, type Handlers } from '../ipc/handlers';
import { isAppUrl } from './security';

export function registerIpc(handlers: Handlers, trusted: () => WebContents | null): () => void {
  for (const channel of CHANNELS) {
    ipcMain.handle(channel, async (event: IpcMainInvokeEvent, input: unknown): Promise<IpcResult<unknown>> => {
      const window = trusted();
      const frame = event.senderFrame;
      if (!window || event.sender !== window || !frame || frame !== window.mainFrame || !isAppUrl(frame.url)) {
        return { ok: false, error: { code: 'forbidden', message: 'This call did not come from Tern’s own window.' } };
      }
      return dispatch(handlers, channel, input);
    });
  }
  return () => CHANNELS.forEach((channel) => ipcMain.removeHandler(channel));
}

// Keeps the tray in step with the app: re-draws it when what it shows changed (unread count,
// connectivity, posts waiting) and turns menu choices into the app's actions. Plain Node: the
// tray itself is a TrayPort.
import { trayModel, type TrayAction, type TrayInput } from './policy/tray-model';
import type { TrayPort } from './ports';

export type TrayActions = Record<TrayAction, () => void>;

export interface TrayController {
  /** Reads the state and re-draws if anything changed. */
  refresh(): void;
  destroy(): void;
}

export function createTrayController(deps: { port: TrayPort; state: () => TrayInput; actions: TrayActions }): TrayController {
  let drawn = '';
  deps.port.onClick(() => deps.actions.open());
  const refresh = () => {
    const model = trayModel(deps.state());
    const key = JSON.stringify(model);
    if (key === drawn) return;
    drawn = key;
    deps.port.render(model, (action) => deps.actions[action]());
  };
  refresh();
  return { refresh, destroy: () => deps.port.destroy() };
}

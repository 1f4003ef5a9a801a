// The Electron TrayPort: draws a TrayModel with Tray, Menu and the inline icons. On macOS the
// unread count is also written beside the icon (setTitle); elsewhere the icon's red dot and the
// tooltip carry it. All decisions are in policy/tray-model.ts and tray-controller.ts.
import { Menu, nativeImage, Tray, type MenuItemConstructorOptions } from 'electron';
import type { TrayAction, TrayModel } from './policy/tray-model';
import type { TrayPort } from './ports';
import { TRAY_ICON_PNG } from './tray-icons';

export function electronTray(): TrayPort {
  const image = (kind: TrayModel['icon']) => nativeImage.createFromBuffer(Buffer.from(TRAY_ICON_PNG[kind], 'base64'), { scaleFactor: 2 });
  const tray = new Tray(image('idle'));
  tray.setToolTip('Tern');
  return {
    render(model, onAction: (action: TrayAction) => void) {
      tray.setImage(image(model.icon));
      tray.setToolTip(model.tooltip);
      if (process.platform === 'darwin') tray.setTitle(model.badge);
      const template = model.menu.map((item): MenuItemConstructorOptions => {
        if (item.kind === 'separator') return { type: 'separator' };
        if (item.kind === 'status') return { label: item.label, enabled: false };
        return { label: item.label, enabled: item.enabled, click: () => onAction(item.id) };
      });
      tray.setContextMenu(Menu.buildFromTemplate(template));
    },
    onClick: (listener) => void tray.on('click', listener),
    destroy: () => tray.destroy(),
  };
}

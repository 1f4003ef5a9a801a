// The list of keyboard shortcuts, opened with `?`. A native modal <dialog>: it traps focus,
// closes with Escape and gives focus back to where it was.
import { useEffect, useRef } from 'react';
import { SHORTCUT_KEYS } from '../keyboard';
import { strings } from '../strings';
import { CloseIcon } from './icons';

const t = strings.shortcuts;

export function ShortcutsDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const ref = useRef<HTMLDialogElement>(null);

  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);

  return (
    <dialog ref={ref} className="dialog" aria-labelledby="shortcuts-title" onClose={onClose}>
      <div className="dialog__header">
        <h2 id="shortcuts-title">{t.title}</h2>
        <button type="button" className="icon-button" onClick={onClose} aria-label={strings.close}>
          <CloseIcon />
        </button>
      </div>
      <dl className="shortcuts">
        {SHORTCUT_KEYS.map((key) => (
          <div key={key} className="shortcuts__row">
            <dt>
              <kbd>{key}</kbd>
            </dt>
            <dd>{t.keys[key]}</dd>
          </div>
        ))}
      </dl>
    </dialog>
  );
}

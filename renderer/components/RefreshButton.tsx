// "Refresh" at the top of a view: asks again, keeps what is shown while it does, and turns its
// icon meanwhile (not when the OS asks for reduced motion).
import { strings } from '../strings';
import { RefreshIcon } from './icons';

export function RefreshButton({ busy, onClick }: { busy: boolean; onClick: () => void }) {
  return (
    <button type="button" className="button button--quiet" onClick={onClick} disabled={busy}>
      <RefreshIcon className={busy ? 'spin-when-busy' : undefined} />
      <span>{busy ? strings.refreshing : strings.refresh}</span>
    </button>
  );
}

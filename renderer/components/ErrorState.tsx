// A failed load, said as a sentence, with a way to try again. With content from before still
// on screen it is a calm banner (a state, not an alarm); with nothing to show it takes its place. `role="alert"` has screen
// readers announce it without moving the keyboard focus away from where the user is.
import type { ApiError } from '../api';
import { strings } from '../strings';
import { DisconnectedIcon } from './icons';

interface Props {
  /** What could not be done ("The overview could not be loaded."); the error's own sentence,
   *  which says why, leads. */
  context: string;
  error: ApiError;
  onRetry: () => void;
  retrying?: boolean;
  /** A slim banner above content still shown from before, instead of a block in its place. */
  compact?: boolean;
}

export function ErrorState({ context, error, onRetry, retrying = false, compact = false }: Props) {
  return (
    <div className={compact ? 'error-state error-state--compact' : 'error-state'} role="alert">
      <DisconnectedIcon />
      <div className="error-state__text">
        <p className="error-state__message">{error.message}</p>
        <p className="error-state__context">{context}</p>
      </div>
      <button type="button" className="button" onClick={onRetry} disabled={retrying}>
        {retrying ? strings.refreshing : strings.retry}
      </button>
    </div>
  );
}

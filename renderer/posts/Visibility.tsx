// The visibility of a post as an icon with its name for screen readers and on hover.
import type { Visibility } from './model';
import { AtIcon, GlobeIcon, LockIcon, UnlistedIcon } from '../components/icons';
import { strings } from '../strings';

export const VISIBILITY_ICONS: Record<Visibility, () => React.JSX.Element> = {
  PUBLIC: GlobeIcon,
  UNLISTED: UnlistedIcon,
  FOLLOWERS_ONLY: LockIcon,
  DIRECT: AtIcon,
};

export function VisibilityMark({ visibility }: { visibility: Visibility }) {
  const Icon = VISIBILITY_ICONS[visibility];
  const label = strings.visibility[visibility];
  return (
    <span className="post__visibility" title={label} role="img" aria-label={label}>
      <Icon />
    </span>
  );
}

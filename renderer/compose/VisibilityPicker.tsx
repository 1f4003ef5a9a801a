// Who can see a post: four choices as one row of radio buttons (arrow keys move between them).
import { strings } from '../strings';
import { VISIBILITY_ICONS } from '../posts/Visibility';
import { VISIBILITIES } from './draft';
import type { Visibility } from '../posts/model';

const v = strings.visibility;

export function VisibilityPicker({ value, onChange, disabled }: { value: Visibility; onChange: (v: Visibility) => void; disabled?: boolean }) {
  return (
    <fieldset className="segmented" disabled={disabled}>
      <legend>{v.label}</legend>
      {VISIBILITIES.map((visibility) => {
        const Icon = VISIBILITY_ICONS[visibility];
        return (
          <label key={visibility} className="segmented__option" title={v.hints[visibility]}>
            <input
              type="radio"
              name="visibility"
              value={visibility}
              checked={value === visibility}
              onChange={() => onChange(visibility)}
            />
            <Icon />
            <span>{v[visibility]}</span>
          </label>
        );
      })}
    </fieldset>
  );
}

// Form fields with their label, a hint that says why, and the error Tern gave for them, wired
// with aria-describedby/aria-invalid so a screen reader reads all three. A switch is a checkbox
// with role="switch": it says on/off and toggles with Space like any checkbox.
import { useId, type InputHTMLAttributes, type ReactNode, type TextareaHTMLAttributes } from 'react';

interface Common {
  label: string;
  hint?: ReactNode;
  error?: string | null | undefined;
}

/** The ids a control points at with aria-describedby, and the hint and error they name. */
function useDescription({ hint, error }: Omit<Common, 'label'>) {
  const id = useId();
  const describedBy = [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ') || undefined;
  const notes = (
    <>
      {hint && (
        <p id={`${id}-hint`} className="field__hint">
          {hint}
        </p>
      )}
      {error && (
        <p id={`${id}-error`} className="field__error">
          {error}
        </p>
      )}
    </>
  );
  return { id, describedBy, notes };
}

function Labelled({ label, hint, error, control }: Common & { control: (id: string, describedBy: string | undefined) => ReactNode }) {
  const { id, describedBy, notes } = useDescription({ hint, error });
  return (
    <div className="field">
      <label className="field__label" htmlFor={id}>
        {label}
      </label>
      {control(id, describedBy)}
      {notes}
    </div>
  );
}

export function TextField({ label, hint, error, ...input }: Common & InputHTMLAttributes<HTMLInputElement>) {
  return (
    <Labelled
      label={label}
      hint={hint}
      error={error}
      control={(id, describedBy) => (
        <input id={id} className="field__input" aria-invalid={error ? true : undefined} aria-describedby={describedBy} {...input} />
      )}
    />
  );
}

export function TextArea({ label, hint, error, ...input }: Common & TextareaHTMLAttributes<HTMLTextAreaElement>) {
  return (
    <Labelled
      label={label}
      hint={hint}
      error={error}
      control={(id, describedBy) => (
        <textarea
          id={id}
          className="field__input field__input--area"
          aria-invalid={error ? true : undefined}
          aria-describedby={describedBy}
          {...input}
        />
      )}
    />
  );
}

interface SwitchProps extends Common {
  checked: boolean;
  onChange: (checked: boolean) => void;
  disabled?: boolean;
}

export function Switch({ label, hint, error, checked, onChange, disabled }: SwitchProps) {
  const { id, describedBy, notes } = useDescription({ hint, error });
  return (
    <div className="switch-field">
      <div className="switch-field__text">
        <label className="field__label" htmlFor={id}>
          {label}
        </label>
        {notes}
      </div>
      <input
        id={id}
        type="checkbox"
        role="switch"
        className="switch"
        checked={checked}
        disabled={disabled}
        aria-describedby={describedBy}
        onChange={(event) => onChange(event.target.checked)}
      />
    </div>
  );
}

/** The error Tern gave for one field of a refused change (issues' paths are dotted). */
export function issueFor(issues: { path: string; message: string }[] | undefined, path: string): string | null {
  return issues?.find((issue) => issue.path === path)?.message ?? null;
}

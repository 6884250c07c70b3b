import type { ReactNode } from 'react';
import './pick.css';

/**
 * A photo to pick: its thumbnail as the label of a native checkbox (keyboard and screen readers
 * get a plain checkbox named after the photo). The task's photo picker and the timeline's Select
 * mode both draw their tiles with it.
 */
export function PhotoCheckbox({ inputId, name, thumbnail, checked, disabled, onChange, hideName, children }: {
  inputId: string;
  /** What the checkbox is called: the photo's caption, else when it was taken. */
  name: string;
  thumbnail: string | null;
  checked: boolean;
  disabled?: boolean;
  onChange(checked: boolean): void;
  /** Only the picture shows; the name is still read out. */
  hideName?: boolean;
  /** After the name, in the label (" (attached)"). */
  children?: ReactNode;
}) {
  return (
    <div className="photo-check">
      <input id={inputId} type="checkbox" checked={checked} disabled={disabled} onChange={(e) => onChange(e.target.checked)} />
      <label htmlFor={inputId}>
        {thumbnail ? <img src={thumbnail} alt="" loading="lazy" /> : <span className="pending">Processing…</span>}
        <span className={hideName ? 'visually-hidden' : undefined}>{name}{children}</span>
      </label>
    </div>
  );
}

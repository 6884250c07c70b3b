import { useId, useRef, useState } from 'react';
import { copyOrSelect } from '../clipboard.ts';

/**
 * A link to hand on: the address in a read-only field (selected whole on focus, so it can always be
 * copied by hand) and "Copy link" (the clipboard; where the browser refuses, the field is
 * selected and the status line says to press Ctrl+C).
 */
export function CopyLink({ url, label }: { url: string; label: string }) {
  const id = useId();
  const field = useRef<HTMLInputElement>(null);
  const [said, setSaid] = useState('');

  async function copy() {
    setSaid(await copyOrSelect(url, field.current) ? 'The link is copied.' : 'The link is selected: press Ctrl+C (⌘C on a Mac) to copy it.');
  }

  return (
    <div className="copy-link">
      <label htmlFor={id}>{label}</label>
      <div className="copy-link-row">
        <input id={id} ref={field} readOnly value={url} spellCheck={false} onFocus={(e) => e.currentTarget.select()} />
        <button type="button" onClick={() => void copy()}>Copy link</button>
      </div>
      <p role="status" className="copy-link-status">{said}</p>
    </div>
  );
}

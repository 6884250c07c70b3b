import { useEffect, useRef, useState, type ReactNode } from 'react';
import { copyOrSelect } from '../../clipboard.ts';

export interface ShownSecret {
  /** "New key" or "New secret", with the key's name. */
  heading: string;
  secret: string;
  /** What else to know: which key, until when the old secret works. */
  note?: ReactNode;
}

/**
 * The secret of a key just created or rotated, shown this once with a Copy button. Closing it is
 * the parent's job: it drops the secret from its state, so it leaves the page (and React) for good.
 */
export function SecretPanel({ shown, onClose }: { shown: ShownSecret; onClose: () => void }) {
  const headingRef = useRef<HTMLHeadingElement>(null);
  const inputRef = useRef<HTMLTextAreaElement>(null);
  const [copyState, setCopyState] = useState<'idle' | 'copied' | 'failed'>('idle');

  useEffect(() => {
    headingRef.current?.focus();
  }, [shown]);

  async function copy() {
    setCopyState(await copyOrSelect(shown.secret, inputRef.current) ? 'copied' : 'failed');
  }

  return (
    <section className="secret-panel" aria-labelledby="secret-heading">
      <h2 id="secret-heading" ref={headingRef} tabIndex={-1}>{shown.heading}</h2>
      <p className="secret-warning"><strong>Copy the secret now and store it somewhere safe: you won't see it again.</strong> Only a hash of it is kept.</p>
      {shown.note}
      <label htmlFor="secret-value">Secret</label>
      <div className="secret-row">
        {/* A text area, so that the whole secret shows (wrapped) even on a phone. */}
        <textarea id="secret-value" ref={inputRef} className="secret-value" readOnly value={shown.secret} rows={2}
          spellCheck={false} autoComplete="off" onFocus={(e) => e.currentTarget.select()} />
        <button type="button" onClick={() => void copy()}>Copy</button>
      </div>
      <p role="status" className="secret-copy-status">
        {copyState === 'copied' ? 'Copied to the clipboard.' : copyState === 'failed' ? 'Could not copy it here: the secret is selected, press Ctrl+C (⌘C on a Mac) to copy it.' : ''}
      </p>
      <button type="button" className="secondary" onClick={onClose}>I have stored it, close</button>
    </section>
  );
}

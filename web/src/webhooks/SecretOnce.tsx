import { useEffect, useId, useRef, useState, type ReactNode } from 'react';

/**
 * A signing secret the API answers once (create, rotate): shown with a Copy button and the
 * warning that it cannot be shown again. Focus moves here so the warning is read out.
 */
export function SecretOnce({ secret, heading, children, onDone }: { secret: string; heading: string; children?: ReactNode; onDone(): void }) {
  const [copied, setCopied] = useState<string | null>(null);
  const id = useId();
  const region = useRef<HTMLElement>(null);
  const code = useRef<HTMLElement>(null);
  useEffect(() => region.current?.focus(), [secret]);

  async function copy() {
    try {
      await navigator.clipboard.writeText(secret);
      setCopied('Copied to the clipboard.');
    } catch {
      // No clipboard (an insecure origin, a refused permission): select the text for a manual copy.
      const range = document.createRange();
      range.selectNodeContents(code.current!);
      getSelection()?.removeAllRanges();
      getSelection()?.addRange(range);
      setCopied('The browser did not let us copy: the secret is selected, copy it with the keyboard.');
    }
  }

  return (
    <section className="secret-once" aria-labelledby={`${id}-h`} tabIndex={-1} ref={region}>
      <h2 id={`${id}-h`}>{heading}</h2>
      <p><strong>Copy it now: you won’t see it again.</strong> Jobsite keeps it only to sign deliveries; if it is lost, rotate the secret to get a new one.</p>
      {children}
      <p className="secret-value"><code ref={code} aria-label="Signing secret">{secret}</code></p>
      <div className="form-actions">
        <button type="button" onClick={copy}>Copy secret</button>
        <button type="button" className="secondary" onClick={onDone}>I have stored it</button>
      </div>
      <p role="status">{copied}</p>
    </section>
  );
}

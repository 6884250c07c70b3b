import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { createPortal } from 'react-dom';
import { ErrorMessage } from '../ErrorMessage.tsx';
import { useAction } from '../useAction.ts';
import { CopyLink } from './CopyLink.tsx';
import { expiryWords } from './shareWords.ts';
import { shareLinksApi, type ShareContent, type ShareLink } from './shareLinksApi.ts';
import './share.css';

type Expiry = 'never' | '7' | '30' | 'date';

const EXPIRIES: Array<[Expiry, string]> = [['7', 'For 7 days'], ['30', 'For 30 days'], ['date', 'Until a date'], ['never', 'Until I turn it off']];

/** The start of the day after `day` (yyyy-mm-dd) in the viewer's zone, as RFC 3339; undefined for no day. */
function endOfLocalDay(day: string): string | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  return m ? new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3]) + 1).toISOString() : undefined;
}

/** Today in the viewer's zone, as a date input's value. */
function today(): string {
  const d = new Date();
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}

/**
 * "Share": a native modal <dialog> asking how long the link works (7 or 30 days, through a day,
 * or until turned off) and whether the page offers downloads, then `POST
 * /v1/projects/{id}/share-links`; the new link's address is shown with "Copy link". Escape or
 * Cancel closes it, and the focus goes back to the button that opened it.
 */
export function ShareDialog({ open, projectId, content, what, onClose, onCreated }: {
  open: boolean;
  projectId: string;
  content: ShareContent;
  /** "2 photos", "the report “Walls”": in the heading and the result. */
  what: string;
  onClose(): void;
  onCreated?(link: ShareLink): void;
}) {
  const id = useId();
  const dialog = useRef<HTMLDialogElement>(null);
  const opener = useRef<Element | null>(null);
  const resultHeading = useRef<HTMLHeadingElement>(null);
  const dateInput = useRef<HTMLInputElement>(null);
  const [expiry, setExpiry] = useState<Expiry>('30');
  const [day, setDay] = useState('');
  const [dayProblem, setDayProblem] = useState<string | null>(null);
  const [downloads, setDownloads] = useState(false);
  const action = useAction();
  const [link, setLink] = useState<ShareLink | null>(null);

  useEffect(() => {
    const d = dialog.current;
    if (!d) return;
    if (open && !d.open) {
      opener.current = document.activeElement;
      setLink(null);
      action.clear();
      setDayProblem(null);
      d.showModal();
      d.querySelector<HTMLElement>('input[type="radio"]:checked')?.focus();
    } else if (!open && d.open) {
      d.close();
    }
  }, [open]);
  useEffect(() => {
    if (link) resultHeading.current?.focus();
  }, [link]);

  async function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    action.clear();
    let expiresAt: string | null;
    if (expiry === 'never') expiresAt = null;
    else if (expiry === 'date') {
      // Works through the chosen day (the viewer's), so "until Friday" includes Friday.
      const end = endOfLocalDay(day);
      if (!end || day < today()) {
        setDayProblem(day ? 'Choose today or a later day.' : 'Choose the last day the link works.');
        dateInput.current?.focus();
        return;
      }
      expiresAt = end;
    } else expiresAt = new Date(Date.now() + Number(expiry) * 86_400_000).toISOString();
    await action.run(async () => {
      const made = await shareLinksApi.create(projectId, content, { expires_at: expiresAt, allow_download: downloads });
      setLink(made);
      onCreated?.(made);
    });
  }

  // In <body>, not where the button is: the surrounding bar's styles (its paragraphs are bold) must not reach it.
  return createPortal(
    <dialog
      ref={dialog} className="confirm-dialog share-dialog" aria-labelledby={`${id}-title`}
      onClose={() => {
        if (open) onClose();
        if (opener.current instanceof HTMLElement && opener.current.isConnected) opener.current.focus();
      }}
    >
      {link
        ? (
          <>
            <h2 id={`${id}-title`} ref={resultHeading} tabIndex={-1}>Link ready</h2>
            <p>
              Anyone with this link sees {what}, without signing in{link.allow_download ? ', and may download them' : ''}.{' '}
              {expiryWords(link)}.
            </p>
            {link.url
              ? <CopyLink url={link.url} label="Share link" />
              : <p className="error">The server cannot show this link’s address. Turn it off and make a new one.</p>}
            <div className="form-actions">
              <button type="button" className="secondary" onClick={onClose}>Done</button>
            </div>
          </>
        )
        : (
          <form onSubmit={submit} noValidate aria-labelledby={`${id}-title`}>
            <h2 id={`${id}-title`}>Share {what}</h2>
            <p className="hint">A public page: whoever has the link sees it, without an account.</p>
            <fieldset className="share-choices">
              <legend>The link works</legend>
              {EXPIRIES.map(([value, words]) => (
                <div className="checkbox-field" key={value}>
                  <input
                    id={`${id}-expiry-${value}`} type="radio" name={`${id}-expiry`} checked={expiry === value}
                    onChange={() => { setExpiry(value); setDayProblem(null); }}
                  />
                  <label htmlFor={`${id}-expiry-${value}`}>{words}</label>
                </div>
              ))}
              {expiry === 'date'
                ? (
                  <>
                    <label htmlFor={`${id}-day`}>Last day it works</label>
                    <input
                      id={`${id}-day`} ref={dateInput} type="date" min={today()} value={day}
                      aria-invalid={dayProblem ? true : undefined} aria-describedby={dayProblem ? `${id}-day-error` : undefined}
                      onChange={(e) => { setDay(e.target.value); setDayProblem(null); }}
                    />
                    {dayProblem ? <p className="field-error" id={`${id}-day-error`}>{dayProblem}</p> : null}
                  </>
                )
                : null}
            </fieldset>
            <div className="checkbox-field">
              <input id={`${id}-downloads`} type="checkbox" checked={downloads} aria-describedby={`${id}-downloads-hint`} onChange={(e) => setDownloads(e.target.checked)} />
              <label htmlFor={`${id}-downloads`}>Allow downloads</label>
            </div>
            <p className="hint" id={`${id}-downloads-hint`}>The page then offers the original files (or the report’s PDF) to download.</p>
            {action.error ? <ErrorMessage error={action.error} /> : null}
            <div className="form-actions">
              <button type="submit" disabled={action.busy}>{action.busy ? 'Making the link…' : 'Create link'}</button>
              <button type="button" className="secondary" onClick={onClose}>Cancel</button>
            </div>
          </form>
        )}
    </dialog>,
    document.body,
  );
}

import { useId, useState } from 'react';
import { ConfirmDialog } from '../ConfirmDialog.tsx';
import { ErrorMessage } from '../ErrorMessage.tsx';
import { useAction } from '../useAction.ts';
import { CopyLink } from './CopyLink.tsx';
import { expiryWords, formatWhen, plural } from './shareWords.ts';
import { shareLinksApi, type ShareLink } from './shareLinksApi.ts';

const STATUS_WORDS = { active: 'Active', expired: 'Expired', revoked: 'Revoked' } as const;

/**
 * One share link: what it shares, its status, who made it and when, until when it works, how often
 * its page was opened; the address with "Copy link" while it works; and "Revoke" (asked first)
 * where the role allows it.
 */
export function ShareLinkRow({ link, what, who, mayRevoke, onRevoked }: {
  link: ShareLink;
  /** "2 photos", "Report “Walls”". */
  what: string;
  who: string;
  mayRevoke: boolean;
  onRevoked(link: ShareLink): void;
}) {
  const id = useId();
  const [confirming, setConfirming] = useState(false);
  const action = useAction();

  const revoke = () => action.run(async () => {
    await shareLinksApi.revoke(link.id);
    setConfirming(false);
    onRevoked(await shareLinksApi.get(link.id));
  }, (err) => {
    setConfirming(false);
    action.setError(err);
  });

  const active = link.status === 'active';
  return (
    <li className={`share-link share-link-${link.status}`} aria-labelledby={`${id}-title`}>
      <div className="share-link-head">
        <h3 id={`${id}-title`}>{what}</h3>
        <span className="badge">{STATUS_WORDS[link.status]}</span>
      </div>
      <p className="muted">
        Made by {who}, <time dateTime={link.created_at}>{formatWhen(link.created_at)}</time>
        {' · '}{link.allow_download ? 'Downloads allowed' : 'View only'}
      </p>
      <p>{expiryWords(link)}</p>
      <p>
        {link.view_count === 0
          ? 'Not opened yet'
          : <>Opened {plural(link.view_count, 'time', 'times')}, last <time dateTime={link.last_viewed_at ?? undefined}>{link.last_viewed_at ? formatWhen(link.last_viewed_at) : ''}</time></>}
      </p>
      {active && link.url ? <CopyLink url={link.url} label={`Link to ${what}`} /> : null}
      {active && mayRevoke
        ? (
          <div className="form-actions">
            <button type="button" className="secondary" onClick={() => setConfirming(true)}>Revoke<span className="visually-hidden"> the link to {what}</span></button>
          </div>
        )
        : null}
      {action.error ? <ErrorMessage error={action.error} /> : null}
      {mayRevoke
        ? (
          <ConfirmDialog
            open={confirming} title={`Revoke the link to ${what}?`} confirmLabel="Revoke link" danger busy={action.busy}
            onConfirm={revoke} onCancel={() => setConfirming(false)}
          >
            <p>Its page stops working at once for everyone who has it (“This link has been turned off”). This cannot be undone: to share again, make a new link.</p>
          </ConfirmDialog>
        )
        : null}
    </li>
  );
}

import { useState, type ReactNode } from 'react';
import type { ShareContent } from './shareLinksApi.ts';
import { ShareDialog } from './ShareDialog.tsx';

/** A "Share" button and its dialog (ShareDialog): for the timeline's selection and for a finished report. */
export function ShareButton({ projectId, content, what, className, disabled, children = 'Share' }: {
  projectId: string;
  content: ShareContent;
  what: string;
  className?: string;
  disabled?: boolean;
  children?: ReactNode;
}) {
  const [open, setOpen] = useState(false);
  // The dialog joins the page when first asked for (a list of 20 reports has 20 of these buttons), then stays for its focus return.
  const [used, setUsed] = useState(false);
  return (
    <>
      <button type="button" className={className} disabled={disabled} onClick={() => { setUsed(true); setOpen(true); }}>{children}</button>
      {used ? <ShareDialog open={open} projectId={projectId} content={content} what={what} onClose={() => setOpen(false)} /> : null}
    </>
  );
}

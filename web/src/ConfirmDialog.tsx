import { useEffect, useId, useRef, type ReactNode } from 'react';

/**
 * A question in a native modal <dialog>: showModal() keeps focus inside and Escape cancels;
 * on closing, focus goes back to what had it (the button that opened it).
 */
export function ConfirmDialog({ open, title, confirmLabel, danger, busy, onConfirm, onCancel, children }: {
  open: boolean;
  title: string;
  confirmLabel: string;
  danger?: boolean;
  busy?: boolean;
  onConfirm(): void;
  onCancel(): void;
  children: ReactNode;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const opener = useRef<Element | null>(null);
  const id = useId();
  useEffect(() => {
    const d = dialog.current;
    if (!d) return;
    if (open && !d.open) {
      opener.current = document.activeElement;
      d.showModal();
      // Cancel first: Enter on an opened dialog must not destroy anything.
      d.querySelector<HTMLElement>('[data-initial-focus]')?.focus();
    } else if (!open && d.open) {
      d.close();
    }
  }, [open]);

  return (
    <dialog
      ref={dialog} className="confirm-dialog" aria-labelledby={`${id}-title`}
      // Escape: the browser closes the dialog; tell the owner, then put focus back.
      onClose={() => {
        if (open) onCancel();
        if (opener.current instanceof HTMLElement && opener.current.isConnected) opener.current.focus();
      }}
    >
      <h2 id={`${id}-title`}>{title}</h2>
      {children}
      <div className="form-actions">
        <button type="button" className={danger ? 'danger' : undefined} disabled={busy} onClick={onConfirm}>{confirmLabel}</button>
        <button type="button" className="secondary" onClick={onCancel} data-initial-focus>Cancel</button>
      </div>
    </dialog>
  );
}

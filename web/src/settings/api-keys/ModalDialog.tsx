import { useEffect, useRef, type ReactNode } from 'react';

/**
 * A native modal <dialog>, open while mounted: focus moves into it, Escape cancels, and when it
 * goes the focus returns to what had it before (or to `returnFocus()` when that is gone).
 */
export function ModalDialog({ title, onCancel, returnFocus, children }: {
  title: string;
  onCancel: () => void;
  returnFocus?: () => HTMLElement | null;
  children: ReactNode;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const fallback = useRef(returnFocus);
  fallback.current = returnFocus;

  useEffect(() => {
    const dialog = ref.current!;
    const opener = document.activeElement as HTMLElement | null;
    dialog.showModal();
    return () => {
      if (dialog.open) dialog.close();
      const target = opener?.isConnected ? opener : fallback.current?.();
      target?.focus();
    };
  }, []);

  return (
    <dialog ref={ref} className="modal" aria-labelledby="modal-title"
      onCancel={(e) => {
        e.preventDefault();
        onCancel();
      }}>
      <h2 id="modal-title">{title}</h2>
      {children}
    </dialog>
  );
}

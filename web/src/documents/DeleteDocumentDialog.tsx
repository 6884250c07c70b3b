import { useEffect, useRef } from 'react';
import { ErrorMessage } from '../ErrorMessage.tsx';
import { useAction } from '../useAction.ts';
import { documentsApi, type ProjectDocument } from './documentsApi.ts';

/**
 * "Delete “name”?" as a native modal <dialog>: focus moves in, Escape and Cancel close it and keep
 * the document; Delete calls DELETE /v1/documents/{id} and closes it, or shows the API's refusal
 * in words and stays open.
 */
export function DeleteDocumentDialog({ target, onClosed }: { target: { doc: ProjectDocument } | null; onClosed(deleted: boolean): void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const deleted = useRef(false);
  const action = useAction();
  const doc = target?.doc ?? null;

  useEffect(() => {
    if (!doc || !dialog.current || dialog.current.open) return;
    deleted.current = false;
    action.clear();
    dialog.current.showModal();
  }, [doc]);

  function confirm() {
    if (!doc) return;
    void action.run(async () => {
      await documentsApi.remove(doc.id);
      deleted.current = true;
      dialog.current?.close();
    });
  }

  return (
    <dialog ref={dialog} className="confirm-dialog" aria-labelledby="delete-document-heading" onClose={() => onClosed(deleted.current)}>
      <h2 id="delete-document-heading">Delete “{doc?.name}”?</h2>
      <p>This deletes the document and its file for everyone on the project. It cannot be undone.</p>
      {action.error ? <ErrorMessage error={action.error} /> : null}
      <div className="form-actions">
        <button type="button" className="secondary" onClick={() => dialog.current?.close()}>Cancel</button>
        <button type="button" className="danger" disabled={action.busy} onClick={confirm}>{action.busy ? 'Deleting…' : 'Delete document'}</button>
      </div>
    </dialog>
  );
}

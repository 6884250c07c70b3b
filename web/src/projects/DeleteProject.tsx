import { useEffect, useRef, useState } from 'react';
import { useLocation } from 'wouter';
import { ApiProblem, type Project } from '../api.ts';
import { ErrorMessage } from '../ErrorMessage.tsx';
import { useAction } from '../useAction.ts';
import { projectsApi } from './projectsApi.ts';
import './projects.css';

/** Words for the refusals a delete can meet; the API's own title and detail otherwise. */
function deleteProblem(error: unknown): unknown {
  if (!(error instanceof ApiProblem)) return error;
  if (error.status === 403) return new ApiProblem(403, error.code, 'You may not delete projects.', 'Only admins and managers can; archive it instead, or ask one of them.');
  if (error.status === 412) return new ApiProblem(412, error.code, 'Someone else changed this project.', 'Nothing was deleted. Close this, look at their changes, then delete again if you still want to.');
  return error;
}

/** The roles that may delete projects (docs/roles.md: `project.delete`). */
const MAY_DELETE = ['admin', 'manager'];

/**
 * "Delete project" (offered to admins and managers) and its confirmation (a native modal <dialog>: focus moves in, Escape cancels,
 * focus comes back to the button). DELETE /v1/projects/{id} with If-Match, then the projects list
 * with a status message.
 */
export function DeleteProject({ project, etag }: { project: Project; etag: string | null }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const opener = useRef<HTMLButtonElement>(null);
  const action = useAction();
  const [, navigate] = useLocation();
  const headingId = `delete-${project.id}-heading`;
  // Unknown until /v1/users/me answers; if it cannot, the button shows and the API decides.
  const [mayDelete, setMayDelete] = useState<boolean | null>(null);
  useEffect(() => {
    let live = true;
    projectsApi.me().then((me) => live && setMayDelete(MAY_DELETE.includes(me.role)), () => live && setMayDelete(true));
    return () => {
      live = false;
    };
  }, []);

  const confirm = () => action.run(async () => {
    await projectsApi.deleteProject(project.id, etag);
    dialog.current?.close();
    navigate('/projects', { state: { notice: `The project “${project.name}” is deleted.` } });
  }, (err) => action.setError(deleteProblem(err)));

  if (!mayDelete) return null;
  return (
    <>
      <button type="button" ref={opener} className="danger" onClick={() => { action.clear(); dialog.current?.showModal(); }}>Delete project</button>
      <dialog
        ref={dialog} className="confirm-dialog" aria-labelledby={headingId}
        // Escape and Cancel both close it; focus goes back to the button that opened it.
        onClose={() => opener.current?.focus()}
      >
        <h2 id={headingId}>Delete “{project.name}”?</h2>
        <p>
          This deletes the project for everyone, with all its photos, videos, documents, tasks, comments and
          reports, and its crew list. It cannot be undone. To keep it out of the way instead, archive it.
        </p>
        {action.error ? <ErrorMessage error={action.error} /> : null}
        <div className="form-actions">
          <button type="button" className="secondary" onClick={() => dialog.current?.close()}>Cancel</button>
          <button type="button" className="danger" disabled={action.busy} onClick={confirm}>{action.busy ? 'Deleting…' : 'Delete project'}</button>
        </div>
      </dialog>
    </>
  );
}

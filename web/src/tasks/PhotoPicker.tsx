import { useEffect, useId, useRef, useState } from 'react';
import type { Photo } from '../api.ts';
import { ErrorMessage } from '../ErrorMessage.tsx';
import { PhotoCheckbox } from '../photos/PhotoCheckbox.tsx';
import { useAction } from '../useAction.ts';
import { tasksApi } from './tasksApi.ts';

const timeFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/** What a photo is called in the picker and on the task: its caption, else when it was taken. */
export const photoName = (p: Photo) => p.caption ?? `Photo taken ${timeFormat.format(new Date(p.captured_at))}`;

/**
 * "Attach photos": a native modal <dialog> (focus moves in, Escape or Cancel closes it, focus
 * returns to the button) with the project's photos as thumbnails, newest taken first, each with a
 * checkbox; those already attached are shown checked and cannot be picked twice.
 */
export function PhotoPicker({ projectId, attached, onAttach }: {
  projectId: string;
  attached: string[];
  /** Saves the chosen ones; a refusal is thrown and shown in the dialog. */
  onAttach(photoIds: string[]): Promise<void>;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const opener = useRef<HTMLButtonElement>(null);
  const [open, setOpen] = useState(false);
  const [photos, setPhotos] = useState<Photo[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [loading, setLoading] = useState(false);
  // Attaching; a failure to load the photos shows in the same place as its error.
  const action = useAction();
  const [chosen, setChosen] = useState<string[]>([]);
  const id = useId();

  function load(after: string | null) {
    setLoading(true);
    action.clear();
    tasksApi.projectPhotos(projectId, after).then((page) => {
      setPhotos((list) => (after ? [...list, ...page.data] : page.data));
      setCursor(page.has_more ? page.next_cursor : null);
    }, action.setError).finally(() => setLoading(false));
  }

  useEffect(() => {
    if (open) dialog.current?.showModal();
  }, [open]);

  function show() {
    setChosen([]);
    action.clear();
    setOpen(true);
    load(null);
  }

  const attach = () => action.run(async () => {
    await onAttach(chosen);
    dialog.current?.close();
  });

  const toggle = (photoId: string, on: boolean) => setChosen((list) => (on ? [...list, photoId] : list.filter((x) => x !== photoId)));

  return (
    <>
      <button type="button" ref={opener} className="secondary" onClick={show}>Attach photos</button>
      {open
        ? (
          <dialog
            ref={dialog} className="confirm-dialog photo-picker" aria-labelledby={`${id}-heading`}
            onClose={() => { setOpen(false); opener.current?.focus(); }}
          >
            <h2 id={`${id}-heading`}>Attach photos from the timeline</h2>
            {!loading && !action.error && photos.length === 0 ? <p>This project has no photos yet.</p> : null}
            {photos.length > 0
              ? (
                <ul className="picker-grid" aria-label="The project’s photos">
                  {photos.map((p) => {
                    const already = attached.includes(p.id);
                    const name = photoName(p);
                    return (
                      <li key={p.id}>
                        <PhotoCheckbox
                          inputId={`${id}-${p.id}`} name={name} thumbnail={p.variants.thumbnail} checked={already || chosen.includes(p.id)} disabled={already}
                          onChange={(on) => toggle(p.id, on)}
                        >
                          {already ? ' (attached)' : ''}
                        </PhotoCheckbox>
                      </li>
                    );
                  })}
                </ul>
              )
              : null}
            {loading ? <p role="status">Loading photos…</p> : null}
            {cursor && !loading ? <p><button type="button" className="secondary" onClick={() => load(cursor)}>Show more photos</button></p> : null}
            {action.error ? <ErrorMessage error={action.error} /> : null}
            <div className="form-actions">
              <button type="button" disabled={action.busy || chosen.length === 0} onClick={attach}>
                {chosen.length === 0 ? 'Attach' : chosen.length === 1 ? 'Attach 1 photo' : `Attach ${chosen.length} photos`}
              </button>
              <button type="button" className="secondary" onClick={() => dialog.current?.close()}>Cancel</button>
            </div>
          </dialog>
        )
        : null}
    </>
  );
}

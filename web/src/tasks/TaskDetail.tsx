import { useCallback, useEffect, useId, useRef, useState } from 'react';
import { Link } from 'wouter';
import { ApiProblem, type Photo, type Project, type Session } from '../api.ts';
import { Comments } from '../comments/Comments.tsx';
import { personName } from '../comments/commentsApi.ts';
import { ErrorMessage } from '../ErrorMessage.tsx';
import { PhotoPicker, photoName } from './PhotoPicker.tsx';
import { TaskForm } from './TaskForm.tsx';
import { CompleteToggle } from './TaskRow.tsx';
import { tasksApi, type Task } from './tasksApi.ts';
import { assigneeWords, dueWords, isOverdue, statusWords, toggledWords } from './taskWords.ts';
import { usePeople } from '../comments/usePeople.ts';
import { mayEditTasks, useCrew } from './useTaskPeople.ts';
import './tasks.css';

const timeFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/** A 412 in words, with Reload; other refusals as the API says them. */
function Stale({ onReload }: { onReload(): void }) {
  return (
    <div className="error" role="alert">
      <strong>Someone else changed this task; reload</strong>
      <span> to see their changes, then make yours again. Nothing was saved. </span>
      <button type="button" onClick={onReload}>Reload</button>
    </div>
  );
}

/**
 * One task (`/projects/{id}/tasks/{taskId}`): done or not, who, when due (overdue in words), its
 * description; Edit; its photos (thumbnails to /photos/{id}, Detach, Attach photos from the
 * timeline); the comments with @mentions. Edits and photo changes send If-Match.
 */
export function TaskDetail({ taskId, project, session }: { taskId: string; project: Project; session: Session }) {
  const [task, setTask] = useState<Task | null>(null);
  const [etag, setEtag] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [photos, setPhotos] = useState<Map<string, Photo | null>>(new Map());
  const [editing, setEditing] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  const [actionError, setActionError] = useState<unknown>(null);
  const [generation, setGeneration] = useState(0);
  const people = usePeople(session.user.id);
  const { crew } = useCrew(project.id);
  const editButton = useRef<HTMLButtonElement>(null);
  const photosHeading = useRef<HTMLHeadingElement>(null);
  const mayEdit = mayEditTasks(session.user.role);
  const id = useId();
  const reload = useCallback(() => {
    setActionError(null);
    setGeneration((g) => g + 1);
  }, []);

  useEffect(() => {
    let live = true;
    tasksApi.task(taskId).then(({ body, etag: tag }) => {
      if (!live) return;
      setTask(body);
      setEtag(tag);
    }, (err) => live && setError(err));
    return () => {
      live = false;
    };
  }, [taskId, generation]);

  // The attached photos' thumbnails, each read once (a photo deleted meanwhile drops out of the task anyway).
  const photoKey = task?.photo_ids.join(',') ?? '';
  useEffect(() => {
    const missing = (task?.photo_ids ?? []).filter((p) => !photos.has(p));
    if (missing.length === 0) return;
    let live = true;
    Promise.all(missing.map((p) => tasksApi.photo(p).then((photo) => [p, photo] as const, () => [p, null] as const))).then((found) => {
      if (live) setPhotos((m) => new Map([...m, ...found]));
    });
    return () => {
      live = false;
    };
    // photos is only read to skip what is known
  }, [photoKey]);

  useEffect(() => {
    if (!task) return;
    document.title = `${task.title} · ${project.name} · Jobsite`;
    return () => {
      document.title = `${project.name} · Jobsite`;
    };
  }, [task?.title, project.name]);

  const back = <p><Link href={`/projects/${project.id}/tasks`}>← All tasks of {project.name}</Link></p>;
  if (error) return <>{back}<ErrorMessage error={error} /></>;
  if (!task) return <>{back}<p role="status">Loading the task…</p></>;

  async function savePhotos(photoIds: string[], words: string) {
    const { body, etag: tag } = await tasksApi.update(task!.id, { photo_ids: photoIds }, etag);
    setTask(body);
    setEtag(tag);
    setNotice(words);
  }

  async function detach(photo: Photo | null, photoId: string) {
    setNotice(null);
    setActionError(null);
    try {
      await savePhotos(task!.photo_ids.filter((p) => p !== photoId), `${photo ? `“${photoName(photo)}”` : 'The photo'} is detached.`);
      photosHeading.current?.focus();
    } catch (err) {
      setActionError(err);
    }
  }

  const overdue = isOverdue(task);
  const creator = people.get(task.created_by);
  const completer = task.completed_by ? people.get(task.completed_by) : undefined;
  const stale = actionError instanceof ApiProblem && actionError.status === 412;

  return (
    <article className="task-detail" aria-labelledby={`${id}-heading`}>
      {back}
      <h2 id={`${id}-heading`}>{task.title}</h2>
      <CompleteToggle
        task={task} label="Completed"
        onChanged={(t, tag) => {
          setTask(t);
          setEtag(tag);
          setNotice(toggledWords(t));
        }}
      />
      <div role="status">{notice}</div>
      {actionError ? stale ? <Stale onReload={reload} /> : <ErrorMessage error={actionError} /> : null}
      <dl className="task-facts-list">
        <dt>Status</dt>
        <dd>{statusWords(task)}{task.completed_at ? ` ${timeFormat.format(new Date(task.completed_at))}${completer ? ` by ${personName(completer)}` : ''}` : ''}</dd>
        <dt>Assigned to</dt>
        <dd>{task.assignee_id ? assigneeWords(task, people).replace(/^Assigned to /, '') : 'Nobody'}</dd>
        <dt>Due</dt>
        <dd className={overdue ? 'overdue' : undefined}>{overdue ? <strong>{dueWords(task)}</strong> : dueWords(task)}</dd>
        <dt>Created</dt>
        <dd>{timeFormat.format(new Date(task.created_at))}{creator ? ` by ${personName(creator)}` : ''}</dd>
      </dl>
      {task.description ? <p className="task-description">{task.description}</p> : null}
      {mayEdit
        ? editing
          ? (
            <TaskForm
              key={etag ?? ''} heading="Edit task" task={task} crew={crew} people={people} submitLabel="Save changes"
              onCancel={() => { setEditing(false); requestAnimationFrame(() => editButton.current?.focus()); }}
              problemWords={(p) => (p.status === 412 ? <Stale onReload={() => { setEditing(false); reload(); }} /> : null)}
              onSubmit={async (input) => {
                const { body, etag: tag } = await tasksApi.update(task.id, input, etag);
                setTask(body);
                setEtag(tag);
                setEditing(false);
                setNotice('Your changes are saved.');
                requestAnimationFrame(() => editButton.current?.focus());
              }}
            />
          )
          : <div className="form-actions"><button type="button" ref={editButton} onClick={() => { setNotice(null); setEditing(true); }}>Edit task</button></div>
        : null}

      <section aria-labelledby={`${id}-photos`}>
        <h3 id={`${id}-photos`} ref={photosHeading} tabIndex={-1}>Photos{task.photo_ids.length > 0 ? <span className="muted"> ({task.photo_ids.length})</span> : null}</h3>
        {task.photo_ids.length > 0
          ? (
            <ul className="task-photos">
              {task.photo_ids.map((photoId) => {
                const photo = photos.get(photoId);
                const name = photo ? photoName(photo) : 'Photo';
                return (
                  <li key={photoId}>
                    <Link href={`/photos/${photoId}`} className="media-tile">
                      {photo?.variants.thumbnail ? <img src={photo.variants.thumbnail} alt={name} /> : <span className="pending">{photo === undefined ? 'Loading…' : name}</span>}
                    </Link>
                    {mayEdit ? <button type="button" className="secondary" aria-label={`Detach ${name}`} onClick={() => detach(photo ?? null, photoId)}>Detach</button> : null}
                  </li>
                );
              })}
            </ul>
          )
          : <p>No photos attached.</p>}
        {mayEdit
          ? (
            <PhotoPicker
              projectId={project.id} attached={task.photo_ids}
              onAttach={async (chosen) => {
                setNotice(null);
                setActionError(null);
                try {
                  await savePhotos([...task.photo_ids, ...chosen], `${chosen.length === 1 ? '1 photo is' : `${chosen.length} photos are`} attached.`);
                } catch (err) {
                  if (err instanceof ApiProblem && err.status === 412) {
                    setActionError(err);
                    return;
                  }
                  throw err;
                }
              }}
            />
          )
          : null}
      </section>

      <Comments target={{ type: 'task', id: task.id }} />
    </article>
  );
}

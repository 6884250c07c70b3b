import { useCallback, useEffect, useState } from 'react';
import { Link } from 'wouter';
import { api, ApiProblem, formatAddress, type Project, type Session } from './api.ts';
import { Comments } from './comments/Comments.tsx';
import { ErrorMessage } from './ErrorMessage.tsx';
import { ProjectForm } from './ProjectForm.tsx';
import { PhotoTimeline } from './photos/PhotoTimeline.tsx';
import { arrivalNotice } from './projects/arrivalNotice.ts';
import { mayExport } from './exports/exportsApi.ts';
import { DeleteProject } from './projects/DeleteProject.tsx';
import { ProjectPeople } from './projects/ProjectPeople.tsx';
import { ProjectSection, ProjectSectionNav } from './projects/ProjectSections.tsx';
import { saveProjectEdit } from './projects/saveProject.ts';
import { SearchBox } from './search/HeaderSearch.tsx';
import { useAction } from './useAction.ts';

/** `project.edit` (docs/roles.md): everyone but restricted users, who edit (and archive) only the projects they created. */
const mayEdit = (session: Session, project: Project) => session.user.role !== 'restricted' || project.created_by === session.user.id;

/** A project: its name and address, and its photos and videos (PhotoTimeline). */
export function ProjectPage({ id, session, path = '' }: { id: string; session: Session; path?: string }) {
  const [slug = '', ...rest] = path.split('/').filter(Boolean);
  const [project, setProject] = useState<Project | null>(null);
  const [etag, setEtag] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [editing, setEditing] = useState(false);
  const action = useAction();
  const [notice, setNotice] = useState<string | null>(null);
  const [generation, setGeneration] = useState(0);
  const reload = useCallback(() => setGeneration((g) => g + 1), []);
  useEffect(() => {
    let live = true;
    setError(null);
    api.projectWithEtag(id).then(({ body, etag: tag }) => {
      if (!live) return;
      setProject(body);
      setEtag(tag);
    }, (err) => live && setError(err));
    return () => {
      live = false;
    };
  }, [id, generation]);
  useEffect(() => {
    setProject(null);
    setEditing(false);
    setNotice(null);
    action.clear();
  }, [id]);

  function changeStatus(archive: boolean) {
    setNotice(null);
    void action.run(async () => {
      const { body, etag: tag } = archive ? await api.archiveProject(id) : await api.restoreProject(id);
      setProject(body);
      setEtag(tag);
      setNotice(archive ? 'The project is archived.' : 'The project is restored.');
    });
  }

  useEffect(() => {
    if (project) document.title = `${project.name} · Jobsite`;
    return () => {
      document.title = 'Jobsite';
    };
  }, [project]);

  if (error) {
    return (
      <>
        <p><Link href="/projects">← Projects</Link></p>
        <ErrorMessage error={error} />
      </>
    );
  }
  return (
    <>
      <p><Link href="/projects">← Projects</Link></p>
      {project
        ? (
          <>
            <h1>{project.name}</h1>
            <p className="muted">
              {formatAddress(project.address) || 'No address'}
              {project.coordinates ? ` · ${project.coordinates.lat}, ${project.coordinates.lon}` : ''}
            </p>
            {project.status === 'archived' ? <p className="badge">Archived</p> : null}
            <ProjectPeople project={project} />
            {project.description ? <p>{project.description}</p> : null}
            {notice ?? arrivalNotice() ? <p role="status">{notice ?? arrivalNotice()}</p> : null}
            {action.error ? <ErrorMessage error={action.error} /> : null}
            {editing
              ? (
                <ProjectForm
                  key={etag ?? ''} title="Edit project" project={project} submitLabel="Save changes" onCancel={() => setEditing(false)}
                  onSubmit={async (input, extras) => {
                    const saved = await saveProjectEdit(project, etag, input, extras);
                    setProject(saved.project);
                    setEtag(saved.etag);
                    setEditing(false);
                    if (saved.problem) action.setError(saved.problem);
                    else setNotice('Your changes are saved.');
                  }}
                  problemWords={(problem) => problem.status === 412
                    ? (
                      <div className="error" role="alert">
                        <strong>Someone else changed this project; reload</strong>
                        <span> to see their changes, then make yours again. Nothing was saved. </span>
                        <button type="button" onClick={reload}>Reload</button>
                      </div>
                    )
                    : null}
                />
              )
              : (
                <div className="form-actions">
                  {mayEdit(session, project)
                    ? (
                      <>
                        <button type="button" onClick={() => { setNotice(null); setEditing(true); }}>Edit project</button>
                        {project.status === 'archived'
                          ? <button type="button" disabled={action.busy} onClick={() => changeStatus(false)}>Restore</button>
                          : <button type="button" disabled={action.busy} onClick={() => changeStatus(true)}>Archive</button>}
                      </>
                    )
                    : null}
                  <DeleteProject project={project} etag={etag} />
                </div>
              )}
          </>
        )
        : <p role="status">Loading the project…</p>}
      <SearchBox landmark="Project search" label="Search this project" placeholder="Search this project" projectId={id} className="project-search" />
      <ProjectSectionNav projectId={id} current={slug} />
      {slug
        ? project ? <ProjectSection slug={slug} rest={rest.join('/')} project={project} session={session} /> : null
        : (
          <>
            <PhotoTimeline key={id} projectId={id} mayExport={mayExport(session.user.role)} />
            {project ? <Comments target={{ type: 'project', id }} /> : null}
          </>
        )}
    </>
  );
}

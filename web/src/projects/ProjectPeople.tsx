import { useEffect, useState } from 'react';
import { displayName, type Project, type User } from '../api.ts';
import { ErrorMessage } from '../ErrorMessage.tsx';
import { projectsApi, type ProjectDetails } from './projectsApi.ts';
import './projects.css';

/** The project page's header lines: its tags and its crew (by name, from GET …/members). */
export function ProjectPeople({ project }: { project: Project }) {
  const { tags, member_ids: memberIds } = project as ProjectDetails;
  const [crew, setCrew] = useState<User[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const crewKey = memberIds.join(',');
  useEffect(() => {
    let live = true;
    setError(null);
    if (!crewKey) {
      setCrew([]);
      return;
    }
    projectsApi.members(project.id).then((users) => live && setCrew(users), (err) => live && setError(err));
    return () => {
      live = false;
    };
  }, [project.id, crewKey]);

  return (
    <div className="project-people">
      {tags.length > 0
        ? (
          <ul className="tag-chips read-only" aria-label="Tags">
            {tags.map((tag) => (
              <li key={tag.id} className="tag-chip">
                <span className="tag-swatch" style={{ background: tag.color }} aria-hidden="true" />{tag.name}
              </li>
            ))}
          </ul>
        )
        : null}
      {error ? <ErrorMessage error={error} /> : null}
      <p>
        <strong>Crew: </strong>
        {crew === null ? 'loading…' : crew.length === 0 ? 'no one yet' : crew.map(displayName).join(', ')}
      </p>
    </div>
  );
}

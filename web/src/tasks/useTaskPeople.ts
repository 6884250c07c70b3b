import { useEffect, useState } from 'react';
import type { Person } from '../comments/commentsApi.ts';
import { tasksApi } from './tasksApi.ts';

/** The project's crew (who tasks can be assigned to), and the error if it could not be read. */
export function useCrew(projectId: string): { crew: Person[]; crewError: unknown } {
  const [crew, setCrew] = useState<Person[]>([]);
  const [crewError, setCrewError] = useState<unknown>(null);
  useEffect(() => {
    let live = true;
    tasksApi.crew(projectId).then((list) => live && setCrew(list.filter((p) => p.status === 'active')), (err) => live && setCrewError(err));
    return () => {
      live = false;
    };
  }, [projectId]);
  return { crew, crewError };
}

/** Restricted users may complete and reopen tasks, and comment, but not create, edit or assign them (docs/roles.md). */
export const mayEditTasks = (role: string) => role !== 'restricted';

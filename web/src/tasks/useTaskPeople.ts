import { useEffect, useState } from 'react';
import { workspacePeople, type Person } from '../comments/commentsApi.ts';
import { tasksApi } from './tasksApi.ts';

/** Everyone in the workspace by id (for names; shared with the comments' cache). Names are a nicety: if they cannot be read, lists say "someone". */
export function usePeople(userId: string): Map<string, Person> {
  const [people, setPeople] = useState<Map<string, Person>>(new Map());
  useEffect(() => {
    let live = true;
    workspacePeople(userId).then((list) => live && setPeople(new Map(list.map((p) => [p.id, p]))), () => undefined);
    return () => {
      live = false;
    };
  }, [userId]);
  return people;
}

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

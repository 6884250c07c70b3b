import { useEffect, useState } from 'react';
import { workspacePeople, type Person } from './commentsApi.ts';

/** Everyone in the workspace by id (for names; the comments' five-minute cache). Names are a nicety: if they cannot be read, lists say "someone". */
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

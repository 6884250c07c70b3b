import { useEffect, useState } from 'react';
import { personName, workspacePeople, type Person } from './commentsApi.ts';

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

/** Who did something, in words, for lists: "you" for the signed-in user, a name, or "someone" (names not read, or a user since removed). */
export function useWhoName(userId: string): (id: string) => string {
  const people = usePeople(userId);
  return (id: string) => {
    if (id === userId) return 'you';
    const person = people.get(id);
    return person ? personName(person) : 'someone';
  };
}

import type { Session } from '../api.ts';

/** What a settings section is given: who is signed in, and the rest of the address after its slug. */
export interface SectionProps {
  session: Session;
  rest: string;
}

import type { Project, Session } from '../api.ts';

/** What a project section is given: the project (loaded), who is signed in, the address after its slug. */
export interface ProjectSectionProps {
  project: Project;
  session: Session;
  rest: string;
}

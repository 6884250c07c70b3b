import type { Db } from '../../db/database.ts';

// Placeholder: the projects feature is being written.
export class ProjectsService {
  constructor(readonly db: Db) {}
}

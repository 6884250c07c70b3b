import type { App } from '../../http/types.ts';
import type { ProjectsService } from './projects.service.ts';

export function projectRoutes(_app: App, _projects: ProjectsService): void {}

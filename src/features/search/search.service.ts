import type { Db } from '../../db/database.ts';
import type { Actor } from '../../http/actor.ts';
import { validationFailed } from '../../http/errors.ts';
import { ProjectAccess } from '../projects/projects.access.ts';
import { SearchRepository } from './search.repository.ts';
import { SEARCH_DEFAULT_LIMIT, SEARCH_TYPES, type SearchFilters, type SearchResultsView, type SearchType } from './search.schemas.ts';

/**
 * GET /v1/search: one search box over projects, photo and video captions, tasks, comments and
 * documents (names and extracted text), ranked, within what the caller can see. The index and its
 * triggers: migration 021; the syntax, ranking and limits: docs/search.md.
 */
export class SearchService {
  private readonly access = new ProjectAccess();
  private readonly entries = new SearchRepository();

  constructor(private readonly db: Db) {}

  async search(actor: Actor, filters: SearchFilters): Promise<SearchResultsView> {
    const { shape, share, query } = await this.entries.queryShape(this.db, filters.q);
    if (shape !== 'words') {
      // Only exclusions would match nearly everything, found by reading everything: no index serves them.
      return validationFailed([{
        path: 'query.q',
        message: shape === 'empty' ? 'has no word to look for' : 'must look for at least one word (not only -exclusions)',
      }]);
    }
    const projectIds = await this.projectScope(actor, filters.project_id);
    // A restricted user also sees the photos they uploaded that wait for a project (docs/photos.md).
    const unfiledOf = projectIds !== null && filters.project_id === undefined ? actor.userId : null;
    if (projectIds?.length === 0 && unfiledOf === null) return { data: [] };
    const types = filters.types === undefined ? null : [...new Set(filters.types.split(','))] as SearchType[];
    const rows = await this.entries.search(this.db, {
      workspaceId: actor.workspaceId,
      query,
      types: types && types.length < SEARCH_TYPES.length ? types : null,
      projectIds,
      unfiledOf,
      limit: filters.limit ?? SEARCH_DEFAULT_LIMIT,
      share,
    });
    return { data: rows };
  }

  /**
   * The projects the results may come from: the one asked for (404 when the caller cannot see
   * it), a restricted user's own (created or on the crew), or null for the whole workspace
   * (photos not yet filed under a project included: only those who see every project see them).
   */
  private async projectScope(actor: Actor, projectId: string | undefined): Promise<string[] | null> {
    if (projectId !== undefined) {
      await this.access.requireProject(this.db, actor, projectId, 'view');
      return [projectId];
    }
    return this.access.listVisibleProjectIds(this.db, actor);
  }
}

import type { Db, Executor } from '../../db/database.ts';
import type { Actor } from '../../http/actor.ts';
import { conflict, notFound, unprocessable, validationFailed } from '../../http/errors.ts';
import { decodeCursor, toPage, type PageOf } from '../../http/pagination.ts';
import { parseRfc3339 } from '../../http/timestamps.ts';
import { isId, newId } from '../../ids.ts';
import { assertMay } from '../access/permissions.ts';
import type { EventLog } from '../events/events.log.ts';
import { ProjectAccess } from '../projects/projects.access.ts';
import { ReportsRepository } from '../reports/reports.repository.ts';
import { ShareLinksRepository, type ShareLinkRow } from './share-links.repository.ts';
import { DEFAULT_LIFETIME_DAYS, type ShareLinkCreateInput, type ShareLinkListFilters } from './share-links.schemas.ts';
import { hashToken, type ShareTokens } from './share-links.tokens.ts';
import { shareUrlOf, toShareLinkView, type ShareLinkView } from './share-links.views.ts';

/**
 * Share links: a public page (/s/{token}, share-links.page.ts) of chosen photos or one finished
 * report of a project. Anyone who can see the project may make one (`share_link.create`); its
 * creator, admins and managers may turn it off (`share_link.revoke`). Listing and reading follow
 * the project's visibility (projects.access.ts: 404 for a project the caller cannot see).
 * Events, in the change's transaction: share_link.created, share_link.revoked.
 */
export class ShareLinksService {
  private readonly links = new ShareLinksRepository();
  private readonly reports = new ReportsRepository();
  private readonly access = new ProjectAccess();

  constructor(private readonly db: Db, private readonly events: EventLog, private readonly tokens: ShareTokens, private readonly publicUrl: string) {}

  async create(actor: Actor, projectId: string, input: ShareLinkCreateInput): Promise<ShareLinkView> {
    const photoIds = input.photo_ids ?? [];
    if ((input.photo_ids === undefined) === (input.report_id === undefined)) {
      unprocessable('share_link_content', 'A share link shares photos or a report: give exactly one of `photo_ids` and `report_id`.');
    }
    const expiresAt = expiryOf(input.expires_at);
    return this.db.transaction().execute(async (tx) => {
      const project = await this.access.requireProject(tx, actor, projectId, 'contribute', 'share');
      assertMay(actor, 'share_link.create');
      const outside = await this.links.photosOutside(tx, project.id, photoIds);
      if (outside.length > 0) {
        unprocessable('photo_not_in_project', `Photo "${outside[0]}" is not a photo of project ${project.id}${outside.length > 1 ? ` (nor are ${outside.length - 1} more)` : ''}.`,
          outside.slice(0, 20).map((id) => ({ path: `body.photo_ids[${photoIds.indexOf(id)}]`, message: `${id} is not a photo of this project` })));
      }
      if (input.report_id !== undefined) await this.checkReport(tx, actor, project.id, input.report_id);
      const id = newId('shareLink');
      const row = await this.links.insert(tx, {
        id,
        workspace_id: actor.workspaceId,
        project_id: project.id,
        token_hash: hashToken(await this.tokens.tokenOf(id)),
        report_id: input.report_id ?? null,
        shares: input.report_id === undefined ? 'photos' : 'report',
        allow_download: input.allow_download ?? false,
        expires_at: expiresAt,
        created_by: actor.userId,
      }, photoIds);
      const view = await this.view(row);
      await this.events.emit(tx, { workspaceId: actor.workspaceId, event: 'share_link.created', projectId: project.id, data: view });
      return view;
    });
  }

  async list(actor: Actor, filters: ShareLinkListFilters & { limit: number }): Promise<PageOf<ShareLinkView>> {
    if (filters.project_id !== undefined) await this.access.requireProject(this.db, actor, filters.project_id, 'view');
    const after = decodeCursor(filters.cursor, 'id', 1, ([id]) => typeof id === 'string');
    const rows = await this.links.list(this.db, {
      workspaceId: actor.workspaceId, visibleProjects: this.access.visibleProjectIds(this.db, actor), projectId: filters.project_id,
      state: filters.status, afterId: after ? String(after[0]) : null, limit: filters.limit,
    });
    const page = toPage(rows, filters.limit, 'id', (r) => [r.id], (r) => r);
    return { ...page, data: await Promise.all(page.data.map((r) => this.view(r))) };
  }

  async get(actor: Actor, id: string): Promise<ShareLinkView> {
    return this.view(await this.link(this.db, actor, id));
  }

  /** Turns the link off at once (its page answers 410 from the next request); revoking twice is a no-op. */
  async revoke(actor: Actor, id: string): Promise<void> {
    await this.db.transaction().execute(async (tx) => {
      const row = await this.link(tx, actor, id, true);
      assertMay(actor, 'share_link.revoke', row.created_by);
      if (row.revoked_at !== null) return;
      await this.links.revoke(tx, row.id, actor.userId);
      const revoked = (await this.links.get(tx, actor.workspaceId, row.id))!;
      await this.events.emit(tx, { workspaceId: actor.workspaceId, event: 'share_link.revoked', projectId: revoked.project_id, data: await this.view(revoked) });
    });
  }

  private async view(row: ShareLinkRow): Promise<ShareLinkView> {
    return toShareLinkView(row, await shareUrlOf(row, this.tokens, this.publicUrl));
  }

  /** A report of the project (422 `report_not_in_project` otherwise) that has its PDF (409 `report_not_ready`). */
  private async checkReport(tx: Executor, actor: Actor, projectId: string, reportId: string): Promise<void> {
    const report = isId('report', reportId) ? await this.reports.get(tx, actor.workspaceId, reportId, true) : undefined;
    if (!report || report.project_id !== projectId) {
      unprocessable('report_not_in_project', `Report "${reportId}" is not a report of project ${projectId}.`, [{ path: 'body.report_id', message: 'names no report of this project' }]);
    }
    if (report!.status !== 'finished') conflict('report_not_ready', `Report ${report!.id} is ${report!.status}; share it once its status is "finished".`);
  }

  /** The link when the actor can see its project; 404 otherwise (as for a missing one). */
  private async link(db: Executor, actor: Actor, id: string, lock = false): Promise<ShareLinkRow> {
    const row = isId('shareLink', id) ? await this.links.get(db, actor.workspaceId, id, lock) : undefined;
    if (!row) return notFound('share link', id);
    await this.access.requireProjectOf(db, actor, row.project_id, { kind: 'share link', id });
    return row;
  }
}

/** Omitted: DEFAULT_LIFETIME_DAYS from now; null: never; else a future RFC 3339 time (400 otherwise, as for API keys). */
function expiryOf(given: string | null | undefined): Date | null {
  if (given === null) return null;
  if (given === undefined) return new Date(Date.now() + DEFAULT_LIFETIME_DAYS * 86_400_000);
  const at = parseRfc3339(given, 'body.expires_at');
  if (at.getTime() <= Date.now()) validationFailed([{ path: 'body.expires_at', message: 'must be in the future' }], 'body.expires_at must be in the future');
  return at;
}

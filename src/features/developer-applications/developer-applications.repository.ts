import type { Executor } from '../../db/database.ts';
import type { DeveloperApplicationStatus } from '../../db/schema.ts';
import type { ApplicationRow } from './developer-applications.views.ts';

export interface NewApplication {
  id: string;
  company_name: string;
  contact_name: string;
  email: string;
  intended_use: string;
  website: string | null;
  expected_monthly_requests: number | null;
  status_token_hash: Buffer;
  client_ip: string | null;
}

/** The developer_applications table: the only place with its SQL. */
export class DeveloperApplicationsRepository {
  insert(db: Executor, row: NewApplication): Promise<ApplicationRow> {
    return db.insertInto('developer_applications').values(row).returningAll().executeTakeFirstOrThrow();
  }

  get(db: Executor, id: string): Promise<ApplicationRow | undefined> {
    return db.selectFrom('developer_applications').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** Locks the application: decisions on it (approve, reject, resend) take turns. */
  getForUpdate(db: Executor, id: string): Promise<ApplicationRow | undefined> {
    return db.selectFrom('developer_applications').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
  }

  list(db: Executor, filters: { status?: DeveloperApplicationStatus; limit: number }): Promise<ApplicationRow[]> {
    let q = db.selectFrom('developer_applications').selectAll();
    if (filters.status) q = q.where('status', '=', filters.status);
    return q.orderBy('id', 'desc').limit(filters.limit).execute();
  }

  update(db: Executor, id: string, changes: Partial<Omit<ApplicationRow, 'id' | 'created_at' | 'updated_at'>>, now: Date): Promise<ApplicationRow> {
    return db.updateTable('developer_applications').set({ ...changes, updated_at: now }).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
  }

  /** Records that the key (or the rejection) reached the applicant: handed to the mail server, or printed for the operator. */
  async markNotified(db: Executor, id: string, apiKeyId: string | null, delivery: 'email' | 'printed' | null, now: Date): Promise<void> {
    let q = db.updateTable('developer_applications')
      .set({ notified_at: now, key_delivery: delivery }).where('id', '=', id);
    // Only if the key is still the one sent (a resend meanwhile replaced it).
    if (apiKeyId) q = q.where('api_key_id', '=', apiKeyId);
    await q.execute();
  }
}

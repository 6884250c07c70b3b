import type { Selectable } from 'kysely';
import type { DeveloperApplicationsTable } from '../../db/schema.ts';
import type { DeveloperApplicationStatusView } from './developer-applications.schemas.ts';

export type ApplicationRow = Selectable<DeveloperApplicationsTable>;

export const toStatusView = (a: ApplicationRow): DeveloperApplicationStatusView => ({
  id: a.id,
  status: a.status,
  created_at: a.created_at.toISOString(),
  updated_at: a.updated_at.toISOString(),
});

/** The whole application, as the operator sees it (CLI `--json`, the operator webhook); never the token's hash. */
export interface OperatorApplicationView {
  id: string;
  status: ApplicationRow['status'];
  company_name: string;
  contact_name: string;
  email: string;
  intended_use: string;
  website: string | null;
  expected_monthly_requests: number | null;
  client_ip: string | null;
  created_at: string;
  updated_at: string;
  reviewed_at: string | null;
  rejection_reason: string | null;
  workspace_id: string | null;
  user_id: string | null;
  api_key_id: string | null;
  /** When the key (approved) or the reason (rejected) was handed to the mail server; null: not sent. */
  notified_at: string | null;
  key_delivery: ApplicationRow['key_delivery'];
}

export const toOperatorView = (a: ApplicationRow): OperatorApplicationView => ({
  id: a.id,
  status: a.status,
  company_name: a.company_name,
  contact_name: a.contact_name,
  email: a.email,
  intended_use: a.intended_use,
  website: a.website,
  expected_monthly_requests: a.expected_monthly_requests === null ? null : Number(a.expected_monthly_requests),
  client_ip: a.client_ip,
  created_at: a.created_at.toISOString(),
  updated_at: a.updated_at.toISOString(),
  reviewed_at: a.reviewed_at?.toISOString() ?? null,
  rejection_reason: a.rejection_reason,
  workspace_id: a.workspace_id,
  user_id: a.user_id,
  api_key_id: a.api_key_id,
  notified_at: a.notified_at?.toISOString() ?? null,
  key_delivery: a.key_delivery,
});

import crypto from 'node:crypto';
import type { Db } from '../../db/database.ts';
import { ApiError, conflict, validationFailed, type FieldError } from '../../http/errors.ts';
import { isId, newId } from '../../ids.ts';
import type { EventLog } from '../events/events.log.ts';
import { DeveloperApplicationsRepository } from './developer-applications.repository.ts';
import { INTENDED_USE_MIN, type DeveloperApplicationCreateInput, type DeveloperApplicationStatusView } from './developer-applications.schemas.ts';
import { OPERATOR_ENDPOINT_ID, SYSTEM_WORKSPACE_ID } from './developer-applications.operator-webhook.ts';
import { toOperatorView, toStatusView } from './developer-applications.views.ts';

const hashToken = (token: string) => crypto.createHash('sha256').update(token).digest();

/**
 * The public side of the developer program: anyone may apply (no key), and the applicant follows
 * the status with the token from the receipt. The operator decides through the CLI
 * (developer-applications.review.ts). Abuse protection lives in the routes (body limit, per-IP
 * rate limit) and here (strict input, one pending application per e-mail address).
 */
export class DeveloperApplicationsService {
  private readonly applications = new DeveloperApplicationsRepository();

  constructor(private readonly db: Db, private readonly events: EventLog) {}

  async apply(input: DeveloperApplicationCreateInput, clientIp: string | null): Promise<{ id: string; status: 'pending'; status_token: string; created_at: string }> {
    const trimmed = {
      company_name: input.company_name.trim(),
      contact_name: input.contact_name.trim(),
      intended_use: input.intended_use.trim(),
    };
    const errors: FieldError[] = [];
    for (const field of ['company_name', 'contact_name'] as const) {
      if (!trimmed[field]) errors.push({ path: `body.${field}`, message: 'must not be blank' });
    }
    if (trimmed.intended_use.length < INTENDED_USE_MIN) {
      errors.push({ path: 'body.intended_use', message: `must have at least ${INTENDED_USE_MIN} characters besides surrounding spaces` });
    }
    if (errors.length) validationFailed(errors, errors.map((e) => `${e.path} ${e.message}`).join('; '));

    const token = crypto.randomBytes(32).toString('base64url');
    try {
      const row = await this.db.transaction().execute(async (tx) => {
        const row = await this.applications.insert(tx, {
          id: newId('developerApplication'),
          ...trimmed,
          email: input.email.trim(),
          website: input.website ?? null,
          expected_monthly_requests: input.expected_monthly_requests ?? null,
          status_token_hash: hashToken(token),
          client_ip: clientIp,
        });
        // To the operator webhook, if one is configured (through the webhook delivery queue).
        await this.events.emit(tx, {
          workspaceId: SYSTEM_WORKSPACE_ID, event: 'developer_application.created', projectId: null,
          data: toOperatorView(row), onlyEndpointId: OPERATOR_ENDPOINT_ID,
        });
        return row;
      });
      return { id: row.id, status: 'pending', status_token: token, created_at: row.created_at.toISOString() };
    } catch (err) {
      const e = err as { code?: string; constraint?: string };
      if (e.code === '23505' && e.constraint === 'developer_applications_one_pending') {
        conflict('application_pending', 'An application from this e-mail address is already pending. You will hear from us at that address.');
      }
      throw err;
    }
  }

  /** The status, for the holder of the token; a wrong token is a 404, exactly like an unknown id. */
  async status(id: string, token: string): Promise<DeveloperApplicationStatusView> {
    const row = isId('developerApplication', id) ? await this.applications.get(this.db, id) : undefined;
    if (!row || !crypto.timingSafeEqual(row.status_token_hash, hashToken(token))) {
      throw new ApiError(404, 'not_found', 'Not found', 'No developer application with this id and status token.');
    }
    return toStatusView(row);
  }
}

import type { ShareLinkRow } from './share-links.repository.ts';
import { hashToken, type ShareTokens } from './share-links.tokens.ts';
import type { ShareLinkView } from './share-links.schemas.ts';

export type { ShareLinkView };

/** The page's address for a link: its derived token when that still matches the stored hash, else null. */
export async function shareUrlOf(row: Pick<ShareLinkRow, 'id' | 'token_hash'>, tokens: ShareTokens, publicUrl: string): Promise<string | null> {
  const token = await tokens.tokenOf(row.id);
  return hashToken(token).equals(row.token_hash) ? `${publicUrl}/s/${token}` : null;
}

/** A share link as the API returns it (and as its events carry it). `now` decides `status` like the page does. */
export function toShareLinkView(r: ShareLinkRow, url: string | null, now = new Date()): ShareLinkView {
  return {
    id: r.id,
    project_id: r.project_id,
    url,
    status: r.revoked_at !== null ? 'revoked' : r.expires_at !== null && r.expires_at <= now ? 'expired' : 'active',
    photo_ids: r.photo_ids,
    report_id: r.report_id,
    allow_download: r.allow_download,
    expires_at: r.expires_at?.toISOString() ?? null,
    view_count: r.view_count,
    last_viewed_at: r.last_viewed_at?.toISOString() ?? null,
    created_by: r.created_by,
    created_at: r.created_at.toISOString(),
    revoked_at: r.revoked_at?.toISOString() ?? null,
    revoked_by: r.revoked_by,
  };
}

import type { Config } from '../../config.ts';
import type { Db } from '../../db/database.ts';
import type { BlobStore } from '../../storage/blob-store.ts';
import { ReportsRepository } from '../reports/reports.repository.ts';
import { reportFilename } from '../reports/reports.views.ts';
import { renderSharePage, type PagePhoto, type PageReport } from './share-links.page.ts';
import { ShareLinksRepository, type SharedPhotoRow, type ShareLinkRow } from './share-links.repository.ts';
import { hashToken, TOKEN_SHAPE } from './share-links.tokens.ts';

export type PublicPage = { status: 200; html: string } | { status: 404 | 410; reason: 'not_found' | 'revoked' | 'expired' };

const EXTENSIONS: Record<string, string> = { 'image/jpeg': 'jpg', 'image/png': 'png', 'image/webp': 'webp', 'image/heic': 'heic', 'image/heif': 'heif', 'image/gif': 'gif' };

/**
 * What `/s/{token}` shows, for anyone who has the link (no account): the project's name and the
 * shared photos (signed thumbnail, large and, when allowed, original URLs with the normal TTL) or
 * the shared report's PDF. Every GET counts a view. A revoked or expired link is a 410 from the
 * next request on; URLs already handed out keep working until their own expiry (the TTL).
 */
export class SharePages {
  private readonly links = new ShareLinksRepository();
  private readonly reports = new ReportsRepository();

  constructor(private readonly db: Db, private readonly blobs: BlobStore, private readonly config: Config) {}

  async open(token: string, count: boolean): Promise<PublicPage> {
    const found = TOKEN_SHAPE.test(token) ? await this.links.open(this.db, hashToken(token), count) : undefined;
    if (!found) return { status: 404, reason: 'not_found' };
    if ('gone' in found) return { status: 410, reason: found.gone };
    const link = found.link;
    const projectName = await this.links.projectName(this.db, link.project_id) ?? 'Shared project';
    if (link.shares === 'photos') {
      const photos = await Promise.all((await this.links.sharedPhotos(this.db, link.id)).map((p) => this.photo(p, link.allow_download)));
      return { status: 200, html: renderSharePage({ projectName, photos, report: null, expiresAt: link.expires_at }) };
    }
    return { status: 200, html: renderSharePage({ projectName, photos: null, report: await this.report(link), expiresAt: link.expires_at }) };
  }

  private sign(key: string, extra: { filename?: string; disposition?: 'inline' | 'attachment'; contentType?: string } = {}): Promise<string> {
    return this.blobs.signedUrl(key, { expiresInSeconds: this.config.media.urlTtlSeconds, ...extra });
  }

  private async photo(p: SharedPhotoRow, allowDownload: boolean): Promise<PagePhoto> {
    const thumbnail = p.variants.thumbnail?.key ?? p.blob_key;
    const large = p.variants.large?.key ?? p.blob_key;
    const filename = `photo-${p.captured_at.toISOString().slice(0, 19).replace(/[:T]/g, '-')}.${EXTENSIONS[p.content_type] ?? 'bin'}`;
    const [thumbnailUrl, fullUrl, downloadUrl] = await Promise.all([
      this.sign(thumbnail), this.sign(large), allowDownload ? this.sign(p.blob_key, { filename, disposition: 'attachment' }) : null,
    ]);
    return {
      id: p.id, caption: p.caption, capturedAt: p.captured_at, timeZone: p.captured_at_time_zone,
      width: p.variants.thumbnail?.width ?? p.width, height: p.variants.thumbnail?.height ?? p.height, thumbnailUrl, fullUrl, downloadUrl,
    };
  }

  /** The shared report's PDF; null when the report was deleted since (or, defensively, has no PDF). */
  private async report(link: ShareLinkRow): Promise<PageReport | null> {
    const report = link.report_id === null ? undefined : await this.reports.getById(this.db, link.report_id);
    if (!report || report.status !== 'finished' || report.blob_key === null) return null;
    const file = { filename: reportFilename(report.title), contentType: 'application/pdf' };
    const [openUrl, downloadUrl] = await Promise.all([
      this.sign(report.blob_key, { ...file, disposition: 'inline' }),
      link.allow_download ? this.sign(report.blob_key, { ...file, disposition: 'attachment' }) : null,
    ]);
    return { title: report.title, pageCount: report.page_count, openUrl, downloadUrl };
  }
}

import { useEffect, useId, useRef, useState } from 'react';
import { useWhoName } from '../comments/usePeople.ts';
import { ErrorMessage } from '../ErrorMessage.tsx';
import type { ProjectSectionProps } from '../projects/sectionProps.ts';
import { usePages } from '../usePages.ts';
import { ShareLinkRow } from './ShareLinkRow.tsx';
import { mayRevokeShareLink, shareLinksApi, type ShareLink, type ShareLinkStatus } from './shareLinksApi.ts';
import { plural } from './shareWords.ts';
import './share.css';

/** Titles of the shared reports, read once each; null: the report is gone. */
function useReportTitles(links: ShareLink[]): Map<string, string | null> {
  const [titles, setTitles] = useState<Map<string, string | null>>(new Map());
  const asked = useRef(new Set<string>());
  useEffect(() => {
    let live = true;
    for (const reportId of new Set(links.flatMap((l) => (l.report_id ? [l.report_id] : [])))) {
      if (asked.current.has(reportId)) continue;
      asked.current.add(reportId);
      shareLinksApi.reportTitle(reportId).then(
        (title) => live && setTitles((prev) => new Map([...prev, [reportId, title]])),
        () => live && setTitles((prev) => new Map([...prev, [reportId, null]])),
      );
    }
    return () => {
      live = false;
    };
  }, [links]);
  return titles;
}

/**
 * /projects/{id}/share-links: the project's share links, newest first (20 a page), whoever made
 * them — what each shares, its status, expiry and views — with Copy link and Revoke. Links are
 * made from the photos (Select → Share) and from finished reports.
 */
export default function ProjectShareLinks({ project, session }: ProjectSectionProps) {
  const id = useId();
  const [status, setStatus] = useState<ShareLinkStatus | ''>('');
  const [notice, setNotice] = useState<string | null>(null);
  const [updates, setUpdates] = useState<Map<string, ShareLink>>(new Map());
  const heading = useRef<HTMLHeadingElement>(null);
  const pages = usePages(`${project.id}:${status}`, (cursor) => shareLinksApi.list(project.id, status || null, cursor));
  const links = pages.items.map((l) => updates.get(l.id) ?? l);
  const titles = useReportTitles(pages.items);
  const who = useWhoName(session.user.id);
  const whatOf = (link: ShareLink) => {
    if (!link.report_id) return link.photo_ids.length === 0 ? 'Photos no longer there' : plural(link.photo_ids.length, 'photo', 'photos');
    const title = titles.get(link.report_id);
    return title === undefined ? 'A report' : title === null ? 'A report (deleted)' : `Report “${title}”`;
  };

  return (
    <section aria-labelledby={`${id}-heading`} className="share-links">
      <h2 id={`${id}-heading`} ref={heading} tabIndex={-1}>Share links</h2>
      <p className="hint">Public pages of chosen photos or a finished report, for people without an account. Make one from the photos (Select, then Share) or from a report.</p>
      <div className="share-filter">
        <label htmlFor={`${id}-status`}>Show</label>
        <select id={`${id}-status`} value={status} onChange={(e) => { setNotice(null); setStatus(e.target.value as ShareLinkStatus | ''); }}>
          <option value="">All links</option>
          <option value="active">Active</option>
          <option value="expired">Expired</option>
          <option value="revoked">Revoked</option>
        </select>
      </div>
      <div role="status" className="report-notice">{notice}</div>
      {pages.error ? <ErrorMessage error={pages.error} /> : null}
      {!pages.loading && !pages.error && links.length === 0 ? <p>{status ? 'No links with this status.' : 'No share links yet.'}</p> : null}
      {links.length > 0
        ? (
          <ul className="share-link-list" aria-label="Share links">
            {links.map((link) => (
              <ShareLinkRow
                key={link.id} link={link} what={whatOf(link)} who={who(link.created_by)}
                mayRevoke={mayRevokeShareLink(session.user.role, session.user.id, link)}
                onRevoked={(revoked) => {
                  setUpdates((prev) => new Map([...prev, [revoked.id, revoked]]));
                  setNotice(`The link to ${whatOf(revoked).replace(/^Report/, 'the report')} is revoked: its page no longer opens.`);
                  heading.current?.focus(); // the row's Revoke button is gone
                }}
              />
            ))}
          </ul>
        )
        : null}
      {pages.loading ? <p role="status">Loading share links…</p> : null}
      {pages.hasMore && !pages.loading && !pages.error
        ? <p><button type="button" className="secondary" onClick={pages.loadMore}>Load more links</button></p>
        : null}
    </section>
  );
}

import { usePolledPages, type PolledList } from '../usePolledPages.ts';
import { isPending, reportsApi, type Report } from './reportsApi.ts';

export type ReportList = PolledList<Report>;

/**
 * A project's reports, newest first, a page at a time; those queued or processing are read again
 * (GET /v1/reports/{id}) until they are finished or failed (usePolledPages). `onChange` hears
 * each report whose status moved, for the page to say so.
 */
export function useReports(projectId: string, onChange: (report: Report) => void): ReportList {
  return usePolledPages(projectId, (cursor) => reportsApi.list(projectId, cursor), reportsApi.get, isPending, onChange);
}

import type { ShareLink } from './shareLinksApi.ts';

const dayFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

export const formatWhen = (iso: string) => dayFormat.format(new Date(iso));

/** "Works until Dec 24, 2026, 6:00 PM", "Works until turned off", "Expired …", "Turned off …". */
export function expiryWords(link: Pick<ShareLink, 'status' | 'expires_at' | 'revoked_at'>): string {
  if (link.status === 'revoked') return `Turned off ${link.revoked_at ? formatWhen(link.revoked_at) : ''}`.trim();
  if (link.expires_at === null) return 'Works until turned off';
  return `${link.status === 'expired' ? 'Expired' : 'Works until'} ${formatWhen(link.expires_at)}`;
}

export const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

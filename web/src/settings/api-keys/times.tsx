/** Times in words for the key list: "3 minutes ago", "in 30 days", with the exact time beside them. */

const UNITS: Array<[Intl.RelativeTimeFormatUnit, number]> = [
  ['year', 365 * 86_400_000],
  ['month', 30 * 86_400_000],
  ['day', 86_400_000],
  ['hour', 3_600_000],
  ['minute', 60_000],
];

const relative = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });
const exact = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/** "5 minutes ago", "in 30 days"; under a minute: "just now" / "in under a minute". */
export function relativeTime(iso: string, now = Date.now()): string {
  const diff = new Date(iso).getTime() - now;
  for (const [unit, ms] of UNITS) {
    if (Math.abs(diff) >= ms) return relative.format(Math.round(diff / ms), unit);
  }
  return diff < 0 ? 'just now' : 'in under a minute';
}

/** "Nov 25, 2026, 6:01 AM" in the viewer's time zone. */
export function exactTime(iso: string): string {
  return exact.format(new Date(iso));
}

/** A time as both: relative in words, the exact time after it (visible: a phone has no hover). */
export function TimeInWords({ iso }: { iso: string }) {
  return <time dateTime={iso} title={exactTime(iso)}>{relativeTime(iso)} <span className="muted">({exactTime(iso)})</span></time>;
}

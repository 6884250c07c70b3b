/** How a report prints times, places and names: in the report's time zone, the same on every machine. */

const formatters = new Map<string, Intl.DateTimeFormat>();
function formatter(zone: string, kind: 'time' | 'day'): Intl.DateTimeFormat {
  const key = `${kind}:${zone}`;
  let f = formatters.get(key);
  if (!f) {
    f = kind === 'time'
      ? new Intl.DateTimeFormat('en-US', {
        timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23', timeZoneName: 'shortOffset',
      })
      : new Intl.DateTimeFormat('en-GB', { timeZone: zone, weekday: 'long', day: 'numeric', month: 'long', year: 'numeric' });
    formatters.set(key, f);
  }
  return f;
}

function parts(date: Date, zone: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const p of formatter(zone, 'time').formatToParts(date)) out[p.type] = p.value;
  return out;
}

/** `2026-05-04 09:30 GMT+2` (the offset as it was on that day in the zone). */
export function formatTime(date: Date, zone: string): string {
  const p = parts(date, zone);
  return `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute} ${p.timeZoneName}`;
}

/** `2026-05-04`: the calendar day in the zone, what photos are grouped by. */
export function dayKey(date: Date, zone: string): string {
  const p = parts(date, zone);
  return `${p.year}-${p.month}-${p.day}`;
}

/** `Monday 4 May 2026`. */
export function formatDay(date: Date, zone: string): string {
  return formatter(zone, 'day').format(date).replace(',', '');
}

/** `48.85840, 2.29450` (5 decimals: about a metre), with the altitude when known. */
export function formatCoordinates(lat: number, lon: number, altitude: number | null): string {
  const base = `${lat.toFixed(5)}, ${lon.toFixed(5)}`;
  return altitude === null ? base : `${base} (${Math.round(altitude)} m)`;
}

/**
 * Text as printed: NFC (one code point per accented letter, what the fonts map), control
 * characters (but newlines) as spaces. Which font draws what is report-fonts.ts's business.
 */
export function printable(text: string): string {
  let out = '';
  for (const ch of text.normalize('NFC')) {
    const code = ch.codePointAt(0)!;
    if (ch === '\n') out += ch;
    else if (code < 0x20 || code === 0x7f || (code >= 0x80 && code < 0xa0)) out += ' ';
    else out += ch;
  }
  return out;
}

/** Time zones as the browser knows them, for the pickers of the workspace settings and of reports. */

/** The IANA zones this browser knows, grouped by region ("America", "Europe", …), with `extra` (the current one, UTC) always in. */
export function zoneGroups(extra: string[]): Array<[string, string[]]> {
  const known = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];
  const zones = [...new Set([...known, ...extra])].sort();
  const groups = new Map<string, string[]>();
  for (const z of zones) {
    const region = z.includes('/') ? z.slice(0, z.indexOf('/')) : 'Other';
    groups.set(region, [...(groups.get(region) ?? []), z]);
  }
  return [...groups.entries()];
}

/** "14:05 (GMT+1)": the time now in `zone`, to check the choice. */
export function nowIn(zone: string): string {
  try {
    return new Intl.DateTimeFormat(undefined, { timeZone: zone, weekday: 'short', hour: '2-digit', minute: '2-digit', timeZoneName: 'shortOffset' }).format(new Date());
  } catch {
    return '';
  }
}

/** What the search benchmarks share (bench/search.bench.ts, bench/search-everything.bench.ts): seeding in SQL, the server, plans, quantiles. */
import { spawn, type ChildProcess } from 'node:child_process';
import type pg from 'pg';

export const sqlArray = (xs: readonly string[]) => `array[${xs.map((x) => `'${x.replace(/'/g, "''")}'`).join(', ')}]`;
/** The `n`-th (1-based, pseudo-random by `salt`) element of `array` for row `g`. */
export const pick = (array: readonly string[], salt: string) => `(${sqlArray(array)})[1 + abs(hashtext(g::text || '${salt}')) % ${array.length}]`;

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
export const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
};

/**
 * One case's HTTP timings: `repeat` requests after 3 warm-ups, one at a time. A failure (a scan can
 * pass the 4 s statement timeout on a busy machine) is counted with its time; a slow case gets
 * fewer rounds (5, or 20 s, is enough to show it). The median and p95 ms, the last answer's row
 * count, and the failures as "status code".
 */
export async function timeRequests(url: string, headers: Record<string, string>, repeat: number): Promise<{ median: number; p95: number; count: number; failures: string[] }> {
  const times: number[] = [];
  let count = 0;
  const failures = new Set<string>();
  for (let i = 0; i < repeat + 3; i++) {
    const t0 = performance.now();
    const res = await fetch(url, { headers });
    const body = await res.json() as { data?: unknown[]; code?: string };
    if (!res.ok) failures.add(`${res.status} ${body.code}`);
    if (i >= 3 || !res.ok) times.push(performance.now() - t0);
    count = body.data?.length ?? 0;
    if (times.length >= 5 && times.reduce((x, y) => x + y, 0) > 20_000) break;
  }
  return { median: quantile(times, 0.5), p95: quantile(times, 0.95), count, failures: [...failures] };
}

/** `jobsite serve` as a child process, once it answers /healthz. */
export async function startServer(env: Record<string, string>, port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', 'serve'], {
    env: { ...process.env, ...env, PORT: String(port) }, stdio: ['ignore', 'ignore', 'inherit'],
  });
  for (let i = 0; i < 300; i++) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/healthz`)).status < 500) return child;
    } catch { /* not up yet */ }
    await sleep(100);
  }
  throw new Error('jobsite serve did not start');
}

/** The plan in brief: its scan nodes with their indexes, outermost first. */
export function planSummary(node: Record<string, unknown>): string[] {
  const type = node['Node Type'] as string;
  const index = node['Index Name'] ? ` ${node['Index Name']}` : node['Relation Name'] ? ` ${node['Relation Name']}` : '';
  const here = /Scan|Sort|BitmapOr|BitmapAnd/.test(type) && !/Subquery/.test(type) && node['Parent Relationship'] !== 'SubPlan' ? [`${type}${index}`] : [];
  const children = (node.Plans as Record<string, unknown>[] | undefined) ?? [];
  return [...here, ...children.filter((c) => c['Parent Relationship'] !== 'SubPlan').flatMap(planSummary)];
}

/** Runs each statement under EXPLAIN (ANALYZE, BUFFERS): the total execution time, and each plan in brief. */
export async function explainAll(client: pg.Client, statements: readonly { sql: string; parameters: readonly unknown[] }[]): Promise<{ ms: number; plans: { ms: number; nodes: string[] }[] }> {
  let ms = 0;
  const plans: { ms: number; nodes: string[] }[] = [];
  for (const query of statements) {
    const { rows: [row] } = await client.query(`explain (analyze, buffers, format json) ${query.sql}`, query.parameters as unknown[]);
    const [plan] = row['QUERY PLAN'] as [{ Plan: Record<string, unknown>; 'Execution Time': number }];
    ms += plan['Execution Time'];
    plans.push({ ms: plan['Execution Time'], nodes: planSummary(plan.Plan) });
  }
  return { ms, plans };
}

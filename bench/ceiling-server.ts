/**
 * The ceiling for bench/api.bench.ts: a bare Fastify with no auth, hooks or schemas, doing the
 * minimal query for the same resource with plain pg (unnamed statements, default type parsing):
 * one select of the row by id, one page of 50 rows from the table, one insert. Whatever the real
 * API spends beyond this, in its process and in PostgreSQL, is the price of what it adds (access,
 * crews, tags, signed URLs, validation, events) and of how it asks.
 */
import Fastify from 'fastify';
import pg from 'pg';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 20 });
const workspaceId = process.env.BENCH_WORKSPACE_ID!;
const userId = process.env.BENCH_USER_ID!;
const app = Fastify({ logger: false });

/** One page of 50 rows of `table`, newest id first, and whether there are more. */
const page = (table: string) => async () => {
  const { rows } = await pool.query(`select * from ${table} where workspace_id = $1 order by id desc limit 51`, [workspaceId]);
  return { data: rows.slice(0, 50), has_more: rows.length > 50 };
};

app.get('/projects', page('projects'));
app.get('/photos', page('photos'));
app.get('/tasks', page('tasks'));

app.get<{ Params: { id: string } }>('/projects/:id', async (req) => {
  const { rows } = await pool.query('select * from projects where workspace_id = $1 and id = $2', [workspaceId, req.params.id]);
  return rows[0];
});

// Events are stored serialized: the page is their payloads spliced into the envelope, as the API does.
app.get('/events', async (_req, reply) => {
  const { rows } = await pool.query('select id, payload from events where workspace_id = $1 order by id desc limit 51', [workspaceId]);
  reply.type('application/json; charset=utf-8');
  return `{"data":[${rows.slice(0, 50).map((r) => r.payload).join(',')}],"has_more":${rows.length > 50}}`;
});

let n = 0;
app.post<{ Body: { name: string; city?: string } }>('/projects', async (req, reply) => {
  const id = `prj_ceiling${process.pid}x${(n++).toString().padStart(12, '0')}`;
  const { rows } = await pool.query(
    'insert into projects (id, workspace_id, name, city, created_by) values ($1, $2, $3, $4, $5) returning *',
    [id, workspaceId, req.body.name, req.body.city ?? null, userId]);
  reply.code(201);
  return rows[0];
});

await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
console.log('ceiling ready');

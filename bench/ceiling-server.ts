/**
 * The ceiling for bench/api.bench.ts: a bare Fastify with no auth, hooks or schemas, doing the
 * same single SQL statement per request as the real endpoint. Whatever the real API loses
 * against this is the price of its conventions (auth, rate limit, validation, serialization).
 */
import Fastify from 'fastify';
import pg from 'pg';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 20 });
const workspaceId = process.env.BENCH_WORKSPACE_ID!;
const userId = process.env.BENCH_USER_ID!;
const app = Fastify({ logger: false });

const PROJECT_COLUMNS = `p.id, p.name, p.description, p.status, p.street_address_1, p.street_address_2, p.city, p.state,
  p.postal_code, p.country, p.lat, p.lon, p.cover_photo_id, p.created_by, p.created_at, p.updated_at, p.archived_at,
  coalesce((select array_agg(m.user_id order by m.user_id) from project_members m where m.project_id = p.id), '{}') as member_ids,
  coalesce((select json_agg(json_build_object('id', t.id, 'name', t.name, 'color', t.color) order by lower(t.name) collate "C", t.id)
    from project_tags l join tags t on t.id = l.tag_id where l.project_id = p.id), '[]'::json) as tags`;

app.get('/projects', async () => {
  const { rows } = await pool.query(
    `select ${PROJECT_COLUMNS} from projects p where p.workspace_id = $1 and p.status = 'active' order by p.id desc limit 51`, [workspaceId]);
  return { data: rows.slice(0, 50), has_more: rows.length > 50 };
});

app.get<{ Params: { id: string } }>('/projects/:id', async (req) => {
  const { rows } = await pool.query(`select ${PROJECT_COLUMNS} from projects p where p.workspace_id = $1 and p.id = $2`, [workspaceId, req.params.id]);
  return rows[0];
});

let n = 0;
// Since the event log (issue 3), a create is durable only with its event: the ceiling writes both,
// in one statement, which is the least a server could do for the same effect.
app.post<{ Body: { name: string; city?: string } }>('/projects', async (req, reply) => {
  const id = `prj_ceiling${process.pid}x${(n++).toString().padStart(12, '0')}`;
  const { rows } = await pool.query(
    `with p as (insert into projects (id, workspace_id, name, city, created_by) values ($1, $2, $3, $4, $5) returning *),
          e as (insert into events (id, workspace_id, project_id, event, payload, created_at)
                select 'evt_' || p.id, p.workspace_id, p.id, 'project.created', row_to_json(p)::text, p.created_at from p)
     select * from p`,
    [id, workspaceId, req.body.name, req.body.city ?? null, userId]);
  reply.code(201);
  return rows[0];
});

await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
console.log('ceiling ready');

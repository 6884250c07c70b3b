/** The data bench/api.bench.ts measures against, made in SQL: projects with crews and tags, photos, tasks and events. */
import { openDatabase } from '../src/db/database.ts';
import { WorkspacesService } from '../src/features/workspaces/workspaces.service.ts';

export interface Seeded {
  workspaceId: string;
  adminId: string;
  apiKey: string;
  /** A project deep enough in the list to be typical: the target of GET /v1/projects/{id}. */
  sampleProjectId: string;
}

export async function seed(url: string, projects: number): Promise<Seeded> {
  const handle = openDatabase(url, { statementTimeoutMs: 300_000 }); // a loaded machine may take seconds per insert
  try {
    const ws = await new WorkspacesService(handle.db).provision({ name: 'Bench', adminEmail: 'bench@example.test' });
    const q = (text: string, values: unknown[]) => handle.pool.query(text, values);
    const w = ws.workspace.id;
    // Each project has an address and one or two crew members: the API aggregates member_ids.
    const crew = [ws.admin.id];
    for (let i = 0; i < 4; i++) {
      const id = `usr_bench${i}`.padEnd(30, '0');
      await q(`insert into users (id, workspace_id, email, handle, role) values ($1, $2, $3, $4, 'standard')`, [id, w, `crew${i}@example.test`, `crew${i}`]);
      crew.push(id);
    }
    await q(`
      insert into projects (id, workspace_id, name, street_address_1, city, state, postal_code, country, lat, lon, created_by, created_at, updated_at)
      select 'prj_' || lpad(to_hex(g), 26, '0'), $1, 'Project ' || g, g || ' Main Street', 'Springfield', 'IL', '62701', 'US',
             39.78 + g / 100000.0, -89.65 + g / 100000.0, $2, now() - (g || ' seconds')::interval, now() - (g || ' seconds')::interval
      from generate_series(1, $3) g`, [w, ws.admin.id, projects]);
    await q(`
      insert into project_members (project_id, user_id, workspace_id)
      select p.id, ($2::text[])[1 + (abs(hashtext(p.id)) % 5)], $1 from projects p where p.workspace_id = $1
      union
      select p.id, ($2::text[])[1 + (abs(hashtext(p.id || 'x')) % 5)], $1 from projects p where p.workspace_id = $1`, [w, crew]);
    // 20 tags; two thirds of the projects carry one or two: the API aggregates their tags too.
    await q(`
      insert into tags (id, workspace_id, name, color)
      select 'tag_bench' || lpad(g::text, 21, '0'), $1, 'Tag ' || g, '#' || lpad(to_hex(g * 40000), 6, '0') from generate_series(1, 20) g`, [w]);
    await q(`
      insert into project_tags (project_id, tag_id, workspace_id)
      select p.id, 'tag_bench' || lpad((1 + abs(hashtext(p.id)) % 20)::text, 21, '0'), $1 from projects p where p.workspace_id = $1 and abs(hashtext(p.id || 't')) % 3 > 0
      union
      select p.id, 'tag_bench' || lpad((1 + abs(hashtext(p.id || 'y')) % 20)::text, 21, '0'), $1 from projects p where p.workspace_id = $1 and abs(hashtext(p.id || 't')) % 3 = 2`, [w]);
    // 10,000 processed photos spread over the first 100 projects; one in five has a caption.
    await q(`
      insert into photos (id, workspace_id, project_id, creator_id, blob_key, content_type, byte_size, sha256, width, height, caption,
                          captured_at, captured_at_source, captured_at_time_zone, lat, lon, coordinates_source, variants, processing_status, processed_at, created_at, updated_at)
      select 'pho_' || lpad(to_hex(g), 26, '0'), $1, 'prj_' || lpad(to_hex(1 + g % 100), 26, '0'), $2, 'photos/2026/11/' || lpad(translate(to_hex(g), '0189', 'ghij'), 26, 'z'), 'image/jpeg', 2000000 + g,
             encode(sha256(g::text::bytea), 'hex'), 4032, 3024, case when g % 5 = 0 then 'Caption ' || g end,
             now() - (g || ' minutes')::interval, 'exif_offset', 'America/Chicago', 39.78, -89.65, 'exif',
             jsonb_build_object('large', jsonb_build_object('key', 'photos/2026/11/' || lpad(translate(to_hex(g), '0189', 'ghij'), 26, 'z') || '.large', 'width', 2048, 'height', 1536),
                                'thumbnail', jsonb_build_object('key', 'photos/2026/11/' || lpad(translate(to_hex(g), '0189', 'ghij'), 26, 'z') || '.thumbnail', 'width', 320, 'height', 240)),
             'processed', now(), now() - (g || ' minutes')::interval, now() - (g || ' minutes')::interval
      from generate_series(1, 10000) g`, [w, ws.admin.id]);
    // 10,000 tasks over the first 100 projects; a third assigned, a quarter with a due date, a fifth completed.
    await q(`
      insert into tasks (id, workspace_id, project_id, title, description, status, assignee_id, due_at, completed_at, completed_by, created_by, created_at, updated_at)
      select 'tsk_' || lpad(to_hex(g), 26, '0'), $1, 'prj_' || lpad(to_hex(1 + g % 100), 26, '0'), 'Task ' || g, 'Do thing ' || g,
             case when g % 5 = 0 then 'completed' else 'open' end, case when g % 3 = 0 then ($3::text[])[1 + g % 5] end,
             case when g % 4 = 0 then now() + (g || ' hours')::interval end,
             case when g % 5 = 0 then now() end, case when g % 5 = 0 then $2::text end, $2, now() - (g || ' minutes')::interval, now() - (g || ' minutes')::interval
      from generate_series(1, 10000) g`, [w, ws.admin.id, crew]);
    // 10,000 events: project.created envelopes as the event log stores them (serialized once).
    await q(`
      insert into events (id, workspace_id, project_id, event, payload, created_at)
      select 'evt_' || lpad(to_hex(g), 26, '0'), $1, p.id, 'project.created',
             json_build_object('id', 'evt_' || lpad(to_hex(g), 26, '0'), 'type', 'project.created', 'created_at', to_char(p.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
                               'workspace_id', $1::text, 'data', json_build_object('object', row_to_json(p)))::text,
             p.created_at
      from generate_series(1, 10000) g join projects p on p.id = 'prj_' || lpad(to_hex(1 + (g - 1) % $2::int), 26, '0')`, [w, projects]);
    await q('analyze', []);
    const { rows: [sample] } = await q(`select id from projects where workspace_id = $1 order by id desc offset 25 limit 1`, [w]);
    return { workspaceId: w, adminId: ws.admin.id, apiKey: ws.api_key.key, sampleProjectId: sample.id };
  } finally {
    await handle.close();
  }
}

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import sharp from 'sharp';
import { api, newWorkspace, startTestApp, type TestContext, type TestWorkspace } from './helpers.ts';
import { multipart } from './multipart.ts';

/**
 * Real responses of the app, validated against what the OpenAPI document says for their operation
 * and status, as a strict client (or a generated SDK with response validation) would: JSON Schema
 * 2020-12 (Ajv2020) straight from the served document, objects closed to undocumented fields, and
 * every header the document marks required present and of its documented form.
 */

type Json = Record<string, any>;
type Response = Awaited<ReturnType<typeof api>>;

let t: TestContext;
let ws: TestWorkspace;
let doc: Json;
let ajv: InstanceType<typeof Ajv2020>;
const headerAjv = new Ajv2020({ strict: false, coerceTypes: true });
const DOC_ID = 'https://jobsite.test/openapi.json';

/** The document as a strict client reads it: an object may carry only the properties it documents. */
function closeObjects(node: unknown): void {
  if (Array.isArray(node)) return node.forEach(closeObjects);
  if (!node || typeof node !== 'object') return;
  const obj = node as Json;
  if (obj.properties && obj.additionalProperties === undefined) obj.additionalProperties = false;
  for (const value of Object.values(obj)) closeObjects(value);
}

const deref = (node: Json): Json => {
  if (typeof node?.$ref !== 'string') return node;
  const target = (node.$ref as string).slice(2).split('/').reduce((n: Json, k) => n[k.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
  return deref(target);
};

function conforms(method: string, path: string, res: Response): void {
  const op = doc.paths[path]?.[method];
  assert.ok(op, `${method.toUpperCase()} ${path} is not in the document`);
  const status = String(res.statusCode);
  const documented = op.responses[status] ?? op.responses[`${status[0]}XX`];
  assert.ok(documented, `${method.toUpperCase()} ${path} answered ${status}, which the document does not list (${Object.keys(op.responses).join(' ')})`);
  const response = deref(documented);
  for (const [name, ref] of Object.entries(response.headers ?? {}) as [string, Json][]) {
    const header = deref(ref);
    const value = res.headers[name.toLowerCase()];
    if (header.required) assert.ok(value !== undefined, `${method.toUpperCase()} ${path} ${status}: required header ${name} is missing`);
    if (value !== undefined && header.schema) {
      // Header values are text: an integer header is checked as the number it spells.
      const validate = headerAjv.compile(header.schema);
      assert.ok(validate(String(value)), `${name}: ${String(value)} does not match ${JSON.stringify(header.schema)}`);
    }
  }
  const type = String(res.headers['content-type'] ?? '').split(';')[0]!;
  if (!response.content) {
    assert.equal(res.body, '', `${method.toUpperCase()} ${path} ${status} documents no body`);
    return;
  }
  const media = response.content[type] ?? response.content['*/*'];
  assert.ok(media, `${method.toUpperCase()} ${path} ${status} answered ${type}; documented: ${Object.keys(response.content).join(', ')}`);
  if (media.schema?.format === 'binary') return;
  const validate = ajv.getSchema(`${DOC_ID}#${schemaPointer(op, method, path, status, media === response.content[type] ? type : '*/*')}`)!;
  const body = res.json();
  assert.ok(validate(body), `${method.toUpperCase()} ${path} ${status}: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(body).slice(0, 600)}`);
}

/** Where a response's schema sits in the document, as a JSON pointer (through a response $ref when there is one). */
function schemaPointer(op: Json, method: string, path: string, status: string, type: string): string {
  const key = op.responses[status] ? status : `${status[0]}XX`;
  const esc = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');
  const ref = op.responses[key].$ref as string | undefined;
  const base = ref ? ref.slice(1) : `/paths/${esc(path)}/${method}/responses/${key}`;
  return `${base}/content/${esc(type)}/schema`;
}

async function call(method: string, path: string, url: string, who: { key: string } | null, body?: unknown, headers: Record<string, string> = {}) {
  const res = await api(t, who, method.toUpperCase(), url, body, headers);
  conforms(method, path, res);
  return res;
}

before(async () => {
  t = await startTestApp({ JOBSITE_WEBHOOK_ALLOW_PRIVATE: '127.0.0.0/8' });
  ws = await newWorkspace(t);
  doc = (await api(t, null, 'GET', '/v1/openapi.json')).json();
  const strict = structuredClone(doc);
  closeObjects(strict.components);
  closeObjects(strict.paths);
  ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
  addFormats.default(ajv);
  ajv.addSchema({ ...strict, $id: DOC_ID });
});
after(async () => t.close());

describe('real responses match the OpenAPI document (strict JSON Schema 2020-12)', () => {
  it('projects: create, read, list, update, and their errors', async () => {
    const created = await call('post', '/v1/projects', '/v1/projects', ws.admin, {
      name: 'Maple St. remodel', address: { street_address_1: '12 Maple St', city: 'Springfield' }, coordinates: { lat: 39.78, lon: -89.65 },
    });
    const id = created.json().id;
    const read = await call('get', '/v1/projects/{id}', `/v1/projects/${id}`, ws.admin);
    await call('get', '/v1/projects', '/v1/projects?limit=1', ws.admin);
    await call('patch', '/v1/projects/{id}', `/v1/projects/${id}`, ws.admin, { description: 'Kitchen' });
    assert.equal((await call('patch', '/v1/projects/{id}', `/v1/projects/${id}`, ws.admin, { description: 'x' }, { 'if-match': String(read.headers.etag) })).statusCode, 412);
    assert.equal((await call('get', '/v1/projects/{id}', `/v1/projects/${id}`, ws.admin, undefined, { 'if-none-match': '"nope"' })).statusCode, 200);
    assert.equal((await call('get', '/v1/projects/{id}', '/v1/projects/prj_01jdq7v3m4k8x2c9f5t6b1n0zr', ws.admin)).statusCode, 404);
    assert.equal((await call('get', '/v1/projects/{id}', `/v1/projects/${'x'.repeat(300)}`, ws.admin)).statusCode, 414);
    assert.equal((await call('post', '/v1/projects', '/v1/projects', ws.admin, { name: 'x', coordinates: { lat: 91, lon: 0 } })).statusCode, 400);
    assert.equal((await call('post', '/v1/projects', '/v1/projects', null, { name: 'x' })).statusCode, 401);
    assert.equal((await call('post', '/v1/projects', '/v1/projects', ws.admin, 'name=x', { 'content-type': 'text/plain' })).statusCode, 415);
    assert.equal((await call('post', '/v1/projects', '/v1/projects', ws.admin, JSON.stringify({ name: 'x'.repeat(1_100_000) }), { 'content-type': 'application/json' })).statusCode, 413);
    const key = { 'idempotency-key': `k-${id}` };
    assert.equal((await call('post', '/v1/projects', '/v1/projects', ws.admin, { name: 'Once' }, key)).statusCode, 201);
    const replay = await call('post', '/v1/projects', '/v1/projects', ws.admin, { name: 'Once' }, key);
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    assert.equal((await call('post', '/v1/projects', '/v1/projects', ws.admin, { name: 'Twice' }, key)).statusCode, 422);
    assert.equal((await call('delete', '/v1/projects/{id}', `/v1/projects/${id}`, ws.admin)).statusCode, 204);
  });

  it('a processed photo without GPS (coordinates_source null), its list and its annotations', async () => {
    const projectId = (await api(t, ws.admin, 'POST', '/v1/projects', { name: 'Photo site' })).json().id;
    const jpeg = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#c0392b' } }).jpeg().toBuffer();
    const { payload, headers } = multipart({ caption: 'North wall' }, { data: jpeg, filename: 'wall.jpg', contentType: 'image/jpeg' });
    const upload = await t.app.inject({ method: 'POST', url: `/v1/projects/${projectId}/photos`, payload, headers: { ...headers, authorization: `Bearer ${ws.admin.key}` } });
    conforms('post', '/v1/projects/{id}/photos', upload);
    assert.equal(upload.statusCode, 201, upload.body);
    await t.runJobs();
    const photo = await call('get', '/v1/photos/{id}', `/v1/photos/${upload.json().id}`, ws.admin);
    assert.equal(photo.json().processing_status, 'processed');
    assert.equal(photo.json().coordinates_source, null);
    await call('get', '/v1/photos', `/v1/photos?project_id=${projectId}`, ws.admin);
    // The signed file URL: public, binary, with its own headers.
    const file = new URL(photo.json().variants.thumbnail).pathname + new URL(photo.json().variants.thumbnail).search;
    for (const method of ['get', 'head']) {
      const res = await t.app.inject({ method: method.toUpperCase() as 'GET', url: file });
      assert.equal(res.statusCode, 200);
      conforms(method, '/v1/files/{kind}/{year}/{month}/{name}', res);
    }
    const annotated = await call('put', '/v1/photos/{id}/annotations', `/v1/photos/${photo.json().id}/annotations`, ws.admin,
      { shapes: [{ type: 'path', points: [[0.1, 0.1], [0.4, 0.5]], color: '#ff3b30', width: 0.01 }] });
    assert.equal(annotated.statusCode, 200, annotated.body);
  });

  it('share links: create, read, list, revoke, and their errors', async () => {
    const projectId = (await api(t, ws.admin, 'POST', '/v1/projects', { name: 'Shared site' })).json().id;
    const jpeg = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#2980b9' } }).jpeg().toBuffer();
    const { payload, headers } = multipart({ caption: 'Handover' }, { data: jpeg, filename: 'handover.jpg', contentType: 'image/jpeg' });
    const upload = await t.app.inject({ method: 'POST', url: `/v1/projects/${projectId}/photos`, payload, headers: { ...headers, authorization: `Bearer ${ws.admin.key}` } });
    await t.runJobs();
    const path = '/v1/projects/{id}/share-links';
    const created = await call('post', path, `/v1/projects/${projectId}/share-links`, ws.admin, { photo_ids: [upload.json().id], allow_download: true });
    assert.equal(created.statusCode, 201, created.body);
    const id = created.json().id;
    await call('get', '/v1/share-links/{id}', `/v1/share-links/${id}`, ws.admin);
    await call('get', '/v1/share-links', `/v1/share-links?project_id=${projectId}&limit=1`, ws.admin);
    assert.equal((await call('delete', '/v1/share-links/{id}', `/v1/share-links/${id}`, ws.admin)).statusCode, 204);
    assert.equal((await call('get', '/v1/share-links/{id}', `/v1/share-links/${id}`, ws.admin)).json().status, 'revoked');
    assert.equal((await call('post', path, `/v1/projects/${projectId}/share-links`, ws.admin, {})).statusCode, 422);
    assert.equal((await call('post', path, `/v1/projects/${projectId}/share-links`, ws.admin, { report_id: 'rep_nope' })).statusCode, 422);
  });

  it('webhooks: created with its secret, disabled (disabled_reason manual) and enabled again (null)', async () => {
    const created = await call('post', '/v1/webhooks', '/v1/webhooks', ws.admin, { url: 'http://127.0.0.1:9/hooks/jobsite', events: ['project.*'] });
    const id = created.json().id;
    const off = await call('patch', '/v1/webhooks/{id}', `/v1/webhooks/${id}`, ws.admin, { enabled: false });
    assert.equal(off.json().disabled_reason, 'manual');
    const on = await call('patch', '/v1/webhooks/{id}', `/v1/webhooks/${id}`, ws.admin, { enabled: true });
    assert.equal(on.json().disabled_reason, null);
    await call('get', '/v1/webhooks', '/v1/webhooks', ws.admin);
    await call('get', '/v1/webhooks/{id}/deliveries', `/v1/webhooks/${id}/deliveries`, ws.admin);
  });

  it('exports: requested (202), read while queued and finished, listed, downloaded, and their errors', async () => {
    const projectId = (await api(t, ws.admin, 'POST', '/v1/projects', { name: 'Export site' })).json().id;
    const jpeg = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#2980b9' } }).jpeg().toBuffer();
    const { payload, headers } = multipart({ caption: 'Deck poured', captured_at: '2026-03-02T07:00:00Z' }, { data: jpeg, filename: 'deck.jpg', contentType: 'image/jpeg' });
    const upload = await t.app.inject({ method: 'POST', url: `/v1/projects/${projectId}/photos`, payload, headers: { ...headers, authorization: `Bearer ${ws.admin.key}` } });
    assert.equal(upload.statusCode, 201, upload.body);
    const queued = await call('post', '/v1/projects/{id}/exports', `/v1/projects/${projectId}/exports`, ws.admin, { captured_after: '2026-03-01T00:00:00Z' });
    assert.equal(queued.statusCode, 202, queued.body);
    const id = queued.json().id;
    assert.equal((await call('get', '/v1/exports/{id}/download', `/v1/exports/${id}/download`, ws.admin)).statusCode, 409);
    await t.runJobs();
    const done = await call('get', '/v1/exports/{id}', `/v1/exports/${id}`, ws.admin);
    assert.equal(done.json().status, 'finished', done.body);
    await call('get', '/v1/projects/{id}/exports', `/v1/projects/${projectId}/exports?limit=1`, ws.admin);
    assert.equal((await call('get', '/v1/exports/{id}/download', `/v1/exports/${id}/download`, ws.admin)).statusCode, 200);
    assert.equal((await call('get', '/v1/exports/{id}/download', `/v1/exports/${id}/download`, ws.admin, undefined, { range: 'bytes=0-9' })).statusCode, 206);
    assert.equal((await call('post', '/v1/projects/{id}/exports', `/v1/projects/${projectId}/exports`, ws.admin, { photo_ids: ['pho_01jdq8c5e7g9h1j3k5m7n9p1q3'] })).statusCode, 422);
    assert.equal((await call('post', '/v1/projects/{id}/exports', `/v1/projects/${projectId}/exports`, ws.admin, { tag_ids: ['nope'] })).statusCode, 400);
    assert.equal((await call('get', '/v1/exports/{id}', '/v1/exports/exp_01jdqd7h9k1m3n5p7q9r1s3v5w', ws.admin)).statusCode, 404);
    assert.equal((await call('delete', '/v1/exports/{id}', `/v1/exports/${id}`, ws.admin)).statusCode, 204);
  });

  it('users, keys, tags, tasks, events and the workspace', async () => {
    await call('get', '/v1/users/me', '/v1/users/me', ws.admin);
    await call('get', '/v1/workspace', '/v1/workspace', ws.admin);
    await call('get', '/v1/users', '/v1/users', ws.admin);
    await call('post', '/v1/api-keys', '/v1/api-keys', ws.admin, { name: 'CRM nightly sync', read_only: true });
    await call('get', '/v1/api-keys', '/v1/api-keys', ws.admin);
    assert.equal((await call('post', '/v1/tags', '/v1/tags', ws.admin, { name: 'Roofing', color: '#e67e22' })).statusCode, 201);
    assert.equal((await call('post', '/v1/tags', '/v1/tags', ws.admin, { name: 'roofing' })).statusCode, 409);
    const projectId = (await api(t, ws.admin, 'POST', '/v1/projects', { name: 'Task site' })).json().id;
    const task = await call('post', '/v1/projects/{id}/tasks', `/v1/projects/${projectId}/tasks`, ws.admin, { title: 'Replace the sill plate', assignee_id: ws.admin.id });
    await call('post', '/v1/tasks/{id}/complete', `/v1/tasks/${task.json().id}/complete`, ws.admin);
    await call('get', '/v1/events', '/v1/events?limit=5', ws.admin);
    await call('get', '/v1/event-types', '/v1/event-types', ws.admin);
  });

  it('sync: a full sync of every kind of resource, a delete, and its errors', async () => {
    const projectId = (await api(t, ws.admin, 'POST', '/v1/projects', { name: 'Sync site' })).json().id;
    const taskId = (await api(t, ws.admin, 'POST', `/v1/projects/${projectId}/tasks`, { title: 'Gone soon' })).json().id;
    await api(t, ws.admin, 'POST', `/v1/projects/${projectId}/comments`, { body: 'On site at 7' });
    const full = await call('get', '/v1/sync', '/v1/sync', ws.admin);
    const kinds = new Set(full.json().changes.map((c: Json) => c.type));
    for (const kind of ['project', 'photo', 'task', 'comment', 'tag', 'user']) assert.ok(kinds.has(kind), `the full sync has a ${kind}`);
    await api(t, ws.admin, 'DELETE', `/v1/tasks/${taskId}`);
    const next = await call('get', '/v1/sync', `/v1/sync?cursor=${full.json().next_cursor}`, ws.admin);
    assert.deepEqual(next.json().changes.map((c: Json) => c.op), ['delete']);
    assert.equal((await call('get', '/v1/sync', '/v1/sync?cursor=bm9wZQ', ws.admin)).statusCode, 400);
    await t.db.updateTable('sync_heads').set({ horizon: 1_000_000 }).where('workspace_id', '=', ws.id).execute();
    assert.equal((await call('get', '/v1/sync', `/v1/sync?cursor=${next.json().next_cursor}`, ws.admin)).statusCode, 410);
  });
});

describe('the document itself', () => {
  const schemaNodes = (node: unknown, visit: (obj: Json, where: string) => void, where = '#'): void => {
    if (Array.isArray(node)) return node.forEach((n, i) => schemaNodes(n, visit, `${where}/${i}`));
    if (!node || typeof node !== 'object') return;
    visit(node as Json, where);
    for (const [k, v] of Object.entries(node as Json)) schemaNodes(v, visit, `${where}/${k}`);
  };

  it('names every operation (unique operationIds) and describes every response', () => {
    const ids = new Set<string>();
    for (const [path, item] of Object.entries(doc.paths) as [string, Json][]) {
      for (const [method, op] of Object.entries(item) as [string, Json][]) {
        assert.match(op.operationId ?? '', /^[a-z][A-Za-z]+$/, `${method} ${path}`);
        assert.ok(!ids.has(op.operationId), `${op.operationId} twice`);
        ids.add(op.operationId);
        for (const [status, response] of Object.entries(op.responses) as [string, Json][]) {
          const description = deref(response).description;
          assert.ok(description && description !== 'Default Response', `${method} ${path} ${status}: ${description}`);
        }
      }
    }
    const declared = new Set((doc.tags as { name: string }[]).map((tag) => tag.name));
    for (const item of [...Object.values(doc.paths), ...Object.values(doc.webhooks)] as Json[]) {
      for (const op of Object.values(item) as Json[]) for (const tag of op.tags ?? []) assert.ok(declared.has(tag), `tag ${tag} is not declared in the document's tags`);
    }
    for (const id of ['listProjects', 'createProject', 'getProject', 'updateProject', 'archiveProject', 'addProjectMember', 'replacePhotoAnnotations', 'downloadDocument', 'downloadDocumentHead']) {
      assert.ok(ids.has(id), id);
    }
  });

  it('uses no draft-07 tuples, and every nullable enum lists null', () => {
    schemaNodes(doc, (obj, where) => {
      assert.ok(!Array.isArray(obj.items), `${where}: items is an array (use prefixItems)`);
      assert.ok(obj.additionalItems === undefined, `${where}: additionalItems`);
      if (Array.isArray(obj.type) && obj.type.includes('null') && Array.isArray(obj.enum)) assert.ok(obj.enum.includes(null), `${where}: enum lacks null`);
    });
  });

  it('gives every JSON request body and the main resources a realistic example that validates', () => {
    const schemas = doc.components.schemas as Json;
    for (const name of ['Project', 'Photo', 'Video', 'Task', 'Comment', 'Document', 'Report', 'Export', 'ShareLink', 'ShareLinkPage', 'Tag', 'User', 'Webhook', 'WebhookWithSecret', 'Event', 'ProjectPage']) {
      assert.ok(schemas[name]?.examples?.length, `${name} has no example`);
    }
    assert.equal(schemas.Project.examples[0].name, 'Maple St. remodel');
    for (const [path, item] of Object.entries(doc.paths) as [string, Json][]) {
      for (const [method, op] of Object.entries(item) as [string, Json][]) {
        const body = op.requestBody?.content?.['application/json']?.schema;
        if (body) assert.ok(deref(body).examples?.length, `${method} ${path}: the request body has no example`);
      }
    }
    for (const [name, schema] of Object.entries(schemas) as [string, Json][]) {
      for (const example of schema.examples ?? []) {
        const validate = ajv.getSchema(`${DOC_ID}#/components/schemas/${name}`)!;
        assert.ok(validate(example), `${name} example: ${ajv.errorsText(validate.errors)}`);
      }
    }
    let deliveries = 0;
    for (const [event, item] of Object.entries(doc.webhooks) as [string, Json][]) {
      const media = item.post.requestBody.content['application/json'];
      if (media.example === undefined) continue;
      deliveries++;
      const validate = ajv.getSchema(`${DOC_ID}#/webhooks/${event}/post/requestBody/content/application~1json/schema`)!;
      assert.ok(validate(media.example), `${event} example: ${ajv.errorsText(validate.errors)}`);
    }
    assert.ok(deliveries >= 20, `only ${deliveries} webhook events have an example`);
    const problem = ajv.getSchema(`${DOC_ID}#/components/schemas/Problem`)!;
    for (const [code, example] of Object.entries(doc.components.examples) as [string, Json][]) {
      assert.ok(problem(example.value), `${code}: ${ajv.errorsText(problem.errors)}`);
      assert.equal(example.value.code, code);
    }
  });

  it('documents each error status once, with the problem schema, the codes it carries and their examples', () => {
    const notFound = doc.components.responses.NotFound;
    assert.match(notFound.description, /`not_found`/);
    assert.equal(notFound.content['application/problem+json'].schema.$ref, '#/components/schemas/Problem');
    assert.ok(notFound.content['application/problem+json'].examples.not_found);
    const patch = doc.paths['/v1/projects/{id}'].patch.responses;
    for (const status of ['412', '413', '414', '415', '422']) assert.ok(patch[status], `PATCH /v1/projects/{id} ${status}`);
    assert.ok(doc.paths['/v1/documents/{id}/download'].get.responses['416']);
    assert.equal(doc.paths['/v1/api-keys/{id}'].delete.responses['412'], undefined, 'revoking a key takes no If-Match');
    assert.equal(doc.paths['/v1/share-links/{id}'].delete.responses['412'], undefined, 'revoking a share link takes no If-Match');
    assert.deepEqual(doc.paths['/v1/files/{kind}/{year}/{month}/{name}'].get.security, []);
    assert.ok(doc.paths['/v1/projects'].post.responses['201'].headers.Location);
  });
});

import { isDeepStrictEqual } from 'node:util';
import { errorResponseRef, errorResponses, errorStatusesOf, problemExample, RESPONSE_HEADERS } from './openapi-errors.ts';
import { SCHEMA_EXAMPLES, pageExample } from './openapi-examples.ts';

/**
 * The last pass over the document @fastify/swagger generates from the route schemas: what a
 * client generator and a strict client need that the route schemas do not say by themselves.
 * Runtime validation and serialization keep using the route schemas as they are; only the
 * document changes here.
 */

type Json = Record<string, any>;

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'] as const;

export interface DocOperation {
  method: string;
  path: string;
  op: Json;
}

export function operationsOf(doc: Json): DocOperation[] {
  const out: DocOperation[] = [];
  for (const [path, item] of Object.entries(doc.paths ?? {}) as [string, Json][]) {
    for (const method of METHODS) if (item[method]) out.push({ method, path, op: item[method] });
  }
  return out;
}

/**
 * OpenAPI 3.1 schemas are JSON Schema 2020-12: a tuple is `prefixItems` (+ `items: false`), not
 * draft-07's `items: [...]` + `additionalItems`. Our validators run draft-07, so route schemas keep
 * the old form; the document gets the new one. Also drops the internal `x-also-multipart` marker.
 */
function modernizeSchemas(node: unknown): void {
  if (Array.isArray(node)) return node.forEach(modernizeSchemas);
  if (!node || typeof node !== 'object') return;
  const obj = node as Json;
  if (Array.isArray(obj.items)) {
    obj.prefixItems = obj.items;
    if (obj.additionalItems === false) obj.items = false;
    else if (obj.additionalItems && typeof obj.additionalItems === 'object') obj.items = obj.additionalItems;
    else delete obj.items;
    delete obj.additionalItems;
  }
  delete obj['x-also-multipart'];
  for (const value of Object.values(obj)) modernizeSchemas(value);
}

const isSchemaLike = (obj: Json) => typeof obj.title === 'string' && /^[A-Za-z][A-Za-z0-9]*$/.test(obj.title) &&
  (obj.type !== undefined || obj.properties !== undefined);

/**
 * Every schema with a `title` (TypeBox `{ title: 'Project' }`) becomes a named component and is
 * referenced from where it was inlined, so generators name their types after ours
 * (`Project`, `ProjectCreate`) instead of `InlineObject17`. A nullable use (`type: ['object',
 * 'null']`) becomes `anyOf: [$ref, null]`. Two different schemas under one title stay inline.
 */
function hoistNamedSchemas(doc: Json): void {
  const schemas: Json = (doc.components ??= {}).schemas ??= {};
  const named = new Map<string, Json>(Object.entries(schemas));

  function visit(node: unknown, isRoot = false): unknown {
    if (Array.isArray(node)) return node.map((n) => visit(n));
    if (!node || typeof node !== 'object') return node;
    const obj = node as Json;
    for (const [key, value] of Object.entries(obj)) obj[key] = visit(value);
    if (isRoot || !isSchemaLike(obj)) return obj;
    const nullable = Array.isArray(obj.type) && obj.type.includes('null') && obj.type.length === 2;
    const base = nullable ? { ...obj, type: obj.type.find((t: string) => t !== 'null') } : obj;
    const existing = named.get(obj.title);
    if (!existing) named.set(obj.title, base);
    else if (!isDeepStrictEqual(existing, base)) return obj;
    const ref = { $ref: `#/components/schemas/${obj.title}` };
    return nullable ? { anyOf: [ref, { type: 'null' }] } : ref;
  }

  for (const [name, schema] of Object.entries(schemas)) schemas[name] = visit(schema, true);
  doc.paths = visit(doc.paths);
  doc.webhooks = visit(doc.webhooks);
  for (const [name, schema] of named) schemas[name] ??= schema;
  doc.components.schemas = Object.fromEntries(Object.entries(schemas).sort(([a], [b]) => a.localeCompare(b)));
}

const pascal = (word: string) => word.split('-').map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join('');
const camel = (word: string) => word.charAt(0).toLowerCase() + pascal(word).slice(1);
const singular = (word: string) => word.endsWith('ies') ? `${word.slice(0, -3)}y` : word.endsWith('s') ? word.slice(0, -1) : word;
const isParam = (segment: string) => segment.startsWith('{');

/** Where the rule below would read badly. */
const OPERATION_IDS: Record<string, string> = {
  'get /v1/users/me': 'getCurrentUser',
  'get /v1/sync': 'syncChanges',
  'post /v1/webhooks/{id}/rotate-secret': 'rotateWebhookSecret',
  'post /v1/notifications/{id}/read': 'markNotificationRead',
  'post /v1/notifications/read-all': 'markAllNotificationsRead',
  'get /v1/files/{kind}/{year}/{month}/{name}': 'downloadFile',
  'head /v1/files/{kind}/{year}/{month}/{name}': 'downloadFileHead',
};

/**
 * The operationId a route gets unless it declares one: a verb and the nouns of its path, as an
 * SDK would name the method: `listProjects`, `createProject`, `getProject`, `updateProject`,
 * `deleteProject`, `archiveProject`, `listProjectMembers`, `addProjectMember`,
 * `replacePhotoAnnotations`, `downloadDocument` (HEAD: `downloadDocumentHead`).
 */
export function operationIdOf(method: string, path: string): string {
  const declared = OPERATION_IDS[`${method} ${path}`];
  if (declared) return declared;
  const segments = path.split('/').filter(Boolean).slice(1);
  const nouns = segments.filter((s) => !isParam(s));
  const last = segments.at(-1)!;
  const head = method === 'head' ? 'Head' : '';
  if (isParam(last)) {
    const name = nouns.map((n) => pascal(singular(n))).join('');
    const relation = segments.filter(isParam).length > 1;
    const verb = { get: 'get', head: 'get', patch: 'update', put: relation ? 'add' : 'replace', delete: relation ? 'remove' : 'delete', post: 'post' }[method] ?? method;
    return `${verb}${name}${head}`;
  }
  const owner = nouns.slice(0, -1).map((n) => pascal(singular(n))).join('');
  if (last.endsWith('s')) {
    if (method === 'get') return `list${owner}${pascal(last)}`;
    if (method === 'post') return `create${owner}${pascal(singular(last))}`;
    if (method === 'put') return `replace${owner}${pascal(last)}`;
  }
  if (method === 'get' && !segments.some(isParam)) return `get${pascal(last)}`;
  return `${camel(last)}${owner}${head}`;
}

const humanize = (name: string) => name.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
const refName = (schema: Json | undefined) => typeof schema?.$ref === 'string' ? schema.$ref.split('/').at(-1) as string : undefined;

function successDescription(method: string, status: string, schema: Json | undefined): string {
  const name = refName(schema);
  if (status === '204') return 'Done; no body.';
  if (status === '304') return 'Not modified: the `If-None-Match` ETag still matches; no body.';
  if (status === '206') return 'Partial content: the requested byte range.';
  if (name?.endsWith('Page')) return 'A page: `data` (up to `limit` items), `has_more`, and `next_cursor` for the next page (also in the `Link` header).';
  const what = name ? `the ${humanize(name)}` : 'the result';
  if (status === '201') return `Created: ${what}. \`Location\` is its URL.`;
  if (status === '202') return `Accepted: ${what}; the work goes on in the background.`;
  if (method === 'get' || method === 'head') return `OK: ${what}.`;
  return `OK: ${what}, as it is now.`;
}

const resolve = (doc: Json, schema: Json | undefined): Json | undefined => {
  const name = refName(schema);
  return name ? doc.components.schemas[name] : schema;
};

/** Response headers of a success response, by what the conventions (src/http) send. */
function successHeaders(doc: Json, method: string, status: string, schema: Json | undefined, authenticated: boolean): Json {
  const headers: Json = { 'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' } };
  const resolved = resolve(doc, schema);
  if (resolved?.properties?.id && resolved.properties.updated_at && method !== 'delete' && status !== '204') {
    headers.ETag = { $ref: '#/components/headers/ETag' };
  }
  if (status === '201') headers.Location = { $ref: '#/components/headers/Location' };
  if (refName(schema)?.endsWith('Page')) headers.Link = { $ref: '#/components/headers/Link' };
  if (method === 'post') headers['Idempotent-Replayed'] = { $ref: '#/components/headers/Idempotent-Replayed' };
  if (authenticated) {
    headers['RateLimit-Policy'] = { $ref: '#/components/headers/RateLimit-Policy' };
    headers.RateLimit = { $ref: '#/components/headers/RateLimit' };
  }
  return headers;
}

/** operationIds (unique), and a name for every inline JSON request body (`CreateUserRequest`). */
function nameOperations(doc: Json): void {
  const ids = new Set<string>();
  for (const { method, path, op } of operationsOf(doc)) {
    op.operationId ??= operationIdOf(method, path);
    // GET and HEAD of one route share its schema, and so a declared operationId.
    if (method === 'head' && ids.has(op.operationId)) op.operationId = `${op.operationId}Head`;
    if (ids.has(op.operationId)) throw new Error(`OpenAPI: operationId ${op.operationId} (${method} ${path}) is used twice.`);
    ids.add(op.operationId);
    const body = op.requestBody?.content?.['application/json'];
    if (body?.schema && !body.schema.$ref && body.schema.type === 'object') {
      const name = `${pascal(op.operationId)}Request`;
      doc.components.schemas[name] = body.schema;
      body.schema = { $ref: `#/components/schemas/${name}` };
    }
  }
}

function finishResponses(doc: Json): void {
  for (const { method, path, op } of operationsOf(doc)) {
    const authenticated = !(Array.isArray(op.security) && op.security.length === 0);
    for (const [status, response] of Object.entries(op.responses ?? {}) as [string, Json][]) {
      if (Number(status) >= 400 || /^[45]XX$/i.test(status)) {
        delete op.responses[status];
        continue;
      }
      const schema = response.content?.['application/json']?.schema;
      if (method === 'head') delete response.content; // the headers of the GET, no body
      if (!response.description || response.description === 'Default Response') response.description = successDescription(method, status, schema);
      response.headers = { ...successHeaders(doc, method, status, schema, authenticated), ...response.headers };
    }
    if (op.parameters?.some((p: Json) => p.in === 'header' && p.name.toLowerCase() === 'if-none-match')) {
      op.responses['304'] ??= { description: successDescription(method, '304', undefined), headers: { ETag: { $ref: '#/components/headers/ETag' } } };
    }
    for (const status of errorStatusesOf(method, path, op, authenticated)) op.responses[status] = errorResponseRef(status);
  }
}

/** The realistic examples (openapi-examples.ts) on their components; list pages get one from their item's. */
function addExamples(doc: Json): void {
  const schemas = doc.components.schemas as Json;
  for (const [name, schema] of Object.entries(schemas) as [string, Json][]) {
    const example = SCHEMA_EXAMPLES[name];
    if (example !== undefined) schema.examples = [example];
  }
  if (schemas.Problem) schemas.Problem.examples ??= [problemExample('not_found')];
  for (const schema of Object.values(schemas) as Json[]) {
    const item = refName(schema.properties?.data?.items);
    if (schema.properties?.has_more && item && SCHEMA_EXAMPLES[item] !== undefined && !schema.examples) {
      schema.examples = [pageExample(SCHEMA_EXAMPLES[item])];
    }
  }
}

export function finishDocument(generated: Json): Json {
  // A copy: the generated object shares the plugin options' component schemas, which a second
  // build (the /docs/yaml form) must find unchanged.
  const doc = structuredClone(generated);
  // GET and HEAD of one route come out as one shared object: each gets its own.
  for (const item of Object.values(doc.paths ?? {}) as Json[]) if (item.head && item.head === item.get) item.head = structuredClone(item.head);
  modernizeSchemas(doc);
  hoistNamedSchemas(doc);
  nameOperations(doc);
  addExamples(doc);
  const errors = errorResponses();
  doc.components.responses = errors.responses;
  doc.components.examples = errors.examples;
  doc.components.headers = RESPONSE_HEADERS;
  finishResponses(doc);
  return doc;
}

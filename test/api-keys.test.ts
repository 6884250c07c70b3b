import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { ApiKeyAuthenticator } from '../src/http/auth.ts';
import { apiKeySecretPrefix, generateApiKeySecret, hashApiKeySecret, isWellFormedApiKey } from '../src/http/api-key-secret.ts';
import { ApiError } from '../src/http/errors.ts';
import { api, newUser, newWorkspace, startTestApp, type TestContext, type TestUser, type TestWorkspace } from './helpers.ts';

const RFC3339_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const SECRET = /^jsk_[0-9A-Za-z]{38}$/;
const KEY_FIELDS = ['created_at', 'created_by', 'expires_at', 'id', 'last_used_at', 'name', 'prefix', 'previous_secret_expires_at', 'read_only',
  'revoked_at', 'rotated_at', 'status', 'updated_at', 'user_id'];
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

const WRONG_IDS = ['nope', 'key_', 'key_123', 'usr_01jd0000000000000000000000', 'key_01JD0000000000000000000000',
  `key_${'0'.repeat(150)}`, 'key_%00', '%E2%9C%93'];

/** The 401 code an authenticator gives for a secret, or 'ok'. */
async function authOutcome(auth: ApiKeyAuthenticator, secret: string): Promise<string> {
  try {
    await auth.authenticate(`Bearer ${secret}`);
    return 'ok';
  } catch (err) {
    assert.ok(err instanceof ApiError);
    assert.equal(err.status, 401);
    return err.code;
  }
}

describe('API key secrets (pure)', () => {
  it('look like jsk_ + 38 base62 characters, and are all different', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 2000; i++) {
      const secret = generateApiKeySecret();
      assert.match(secret, SECRET);
      assert.ok(isWellFormedApiKey(secret), secret);
      seen.add(secret);
    }
    assert.equal(seen.size, 2000);
  });

  it('use the whole alphabet in the random part', () => {
    const chars = new Set<string>();
    for (let i = 0; i < 200; i++) for (const c of generateApiKeySecret().slice(4, 36)) chars.add(c);
    assert.equal(chars.size, 62);
  });

  it('have a checksum that detects every single changed character', () => {
    const secret = generateApiKeySecret();
    for (let pos = 4; pos < secret.length; pos++) {
      for (const c of ALPHABET) {
        if (c === secret[pos]) continue;
        const typo = secret.slice(0, pos) + c + secret.slice(pos + 1);
        assert.equal(isWellFormedApiKey(typo), false, `position ${pos} → ${c}`);
      }
    }
  });

  it('detects swapped neighbours, truncation, extension and a wrong prefix', () => {
    const secret = generateApiKeySecret();
    for (let pos = 4; pos < secret.length - 1; pos++) {
      if (secret[pos] === secret[pos + 1]) continue;
      const swapped = secret.slice(0, pos) + secret[pos + 1] + secret[pos] + secret.slice(pos + 2);
      assert.equal(isWellFormedApiKey(swapped), false, `swap at ${pos}`);
    }
    for (const bad of [secret.slice(0, -1), `${secret}a`, `JSK_${secret.slice(4)}`, `jsk-${secret.slice(4)}`, `xsk_${secret.slice(4)}`,
      secret.slice(4), `${secret.slice(0, 10)}!${secret.slice(11)}`, ` ${secret}`, `${secret} `, '', 'jsk_']) {
      assert.equal(isWellFormedApiKey(bad), false, JSON.stringify(bad));
    }
  });

  it('show a prefix of jsk_ and the first four characters', () => {
    const secret = generateApiKeySecret();
    assert.equal(apiKeySecretPrefix(secret), secret.slice(0, 8));
    assert.match(apiKeySecretPrefix(secret), /^jsk_[0-9A-Za-z]{4}$/);
  });

  it('are stored as a SHA-256 of the whole secret', () => {
    const secret = generateApiKeySecret();
    const hash = hashApiKeySecret(secret);
    assert.equal(hash.length, 32);
    assert.deepEqual(hash, crypto.createHash('sha256').update(secret).digest());
    assert.notDeepEqual(hash, hashApiKeySecret(generateApiKeySecret()));
  });
});

describe('API keys', () => {
  let t: TestContext;
  let ws: TestWorkspace;
  let manager: TestUser;
  let standard: TestUser;
  let restricted: TestUser;
  before(async () => {
    t = await startTestApp();
    ws = await newWorkspace(t);
    manager = await newUser(t, ws, 'manager');
    standard = await newUser(t, ws, 'standard');
    restricted = await newUser(t, ws, 'restricted');
  });
  after(async () => t.close());

  describe('POST /v1/api-keys', () => {
    it('creates a key for the caller: 201, Location, the secret once, a matching prefix', async () => {
      for (const who of [ws.admin, manager, standard, restricted]) {
        const res = await api(t, who, 'POST', '/v1/api-keys', { name: 'Laptop' });
        assert.equal(res.statusCode, 201, res.body);
        const key = res.json();
        assert.deepEqual(Object.keys(key).sort(), [...KEY_FIELDS, 'key'].sort());
        assert.match(key.id, /^key_[0-9a-z]{26}$/);
        assert.equal(res.headers.location, `/v1/api-keys/${key.id}`);
        assert.match(key.key, SECRET);
        assert.ok(isWellFormedApiKey(key.key));
        assert.equal(key.prefix, key.key.slice(0, 8));
        assert.equal(key.name, 'Laptop');
        assert.equal(key.user_id, who.id);
        assert.equal(key.created_by, who.id);
        assert.equal(key.read_only, false);
        assert.equal(key.revoked_at, null);
        assert.match(key.created_at, RFC3339_MS);
        assert.equal(key.updated_at, key.created_at);

        // The new key works, as its user.
        const me = await api(t, key.key, 'GET', '/v1/users/me');
        assert.equal(me.statusCode, 200);
        assert.equal(me.json().id, who.id);

        // Never again: neither GET nor the list shows the secret or any hash of it.
        const got = await api(t, who, 'GET', res.headers.location as string);
        assert.equal(got.statusCode, 200);
        const { key: _secret, ...view } = key;
        assert.deepEqual(got.json(), view);
        assert.ok(!got.body.includes(key.key.slice(8)), 'GET leaks the secret');
        const list = await api(t, who, 'GET', '/v1/api-keys?limit=100');
        for (const item of list.json().data) assert.deepEqual(Object.keys(item).sort(), KEY_FIELDS);
        assert.ok(!list.body.includes(key.key.slice(8)), 'the list leaks the secret');
        const hash = hashApiKeySecret(key.key);
        for (const encoded of [hash.toString('hex'), hash.toString('base64'), hash.toString('base64url')]) {
          assert.ok(!got.body.includes(encoded) && !list.body.includes(encoded), 'a hash leaks');
        }
      }
    });

    it('stores only the hash of the secret', async () => {
      const res = await api(t, standard, 'POST', '/v1/api-keys', { name: 'stored' });
      const secret: string = res.json().key;
      const row = await t.db.selectFrom('api_keys').selectAll().where('id', '=', res.json().id).executeTakeFirstOrThrow();
      assert.deepEqual(Buffer.from(row.secret_hash), hashApiKeySecret(secret));
      assert.equal(row.secret_prefix, secret.slice(0, 8));
      assert.ok(!JSON.stringify(row).includes(secret.slice(8)));
    });

    it('lets admins create keys for other users, which act as those users', async () => {
      const res = await api(t, ws.admin, 'POST', '/v1/api-keys', { name: 'for manager', user_id: manager.id });
      assert.equal(res.statusCode, 201);
      assert.equal(res.json().user_id, manager.id);
      assert.equal(res.json().created_by, ws.admin.id);
      const me = await api(t, res.json().key, 'GET', '/v1/users/me');
      assert.equal(me.json().id, manager.id);
      // It acts with the user's role, not its creator's.
      assert.equal((await api(t, res.json().key, 'POST', '/v1/users', { email: `x${Date.now()}@x.test`, role: 'admin' })).statusCode, 403);
    });

    it('forbids non-admins from creating keys for others (403), but they may name themselves', async () => {
      for (const who of [manager, standard, restricted]) {
        for (const target of [ws.admin.id, standard.id === who.id ? restricted.id : standard.id]) {
          const res = await api(t, who, 'POST', '/v1/api-keys', { name: 'sneaky', user_id: target });
          assert.equal(res.statusCode, 403, `${who.role} → ${target}`);
          assert.equal(res.json().code, 'forbidden');
        }
        const own = await api(t, who, 'POST', '/v1/api-keys', { name: 'mine', user_id: who.id });
        assert.equal(own.statusCode, 201);
        assert.equal(own.json().user_id, who.id);
      }
      const stranger = await newUser(t, await newWorkspace(t), 'standard');
      assert.equal((await api(t, standard, 'POST', '/v1/api-keys', { name: 'x', user_id: stranger.id })).statusCode, 403);
    });

    it('refuses a key for a deactivated user (422 user_inactive)', async () => {
      const u = await newUser(t, ws, 'standard');
      await api(t, ws.admin, 'DELETE', `/v1/users/${u.id}`);
      const res = await api(t, ws.admin, 'POST', '/v1/api-keys', { name: 'late', user_id: u.id });
      assert.equal(res.statusCode, 422);
      assert.equal(res.json().code, 'user_inactive');
    });

    it('answers 404 for a user of another workspace or an unknown or malformed user id', async () => {
      const stranger = await newUser(t, await newWorkspace(t), 'standard');
      for (const userId of [stranger.id, 'usr_01jd0000000000000000000000', 'nope', 'key_01jd0000000000000000000000']) {
        const res = await api(t, ws.admin, 'POST', '/v1/api-keys', { name: 'x', user_id: userId });
        assert.equal(res.statusCode, 404, `${JSON.stringify(userId)}: ${res.body}`);
        assert.equal(res.json().code, 'not_found');
      }
      // NUL is never text, in any body field (docs/conventions.md).
      assert.equal((await api(t, ws.admin, 'POST', '/v1/api-keys', { name: 'x', user_id: 'usr_\u0000' })).statusCode, 400);
    });

    it('rejects bad bodies (400), never 500', async () => {
      const bodies: Array<[unknown, string]> = [
        [{}, 'body.name'],
        [{ name: '' }, 'body.name'],
        [{ name: 'x'.repeat(101) }, 'body.name'],
        [{ name: 42 }, 'body.name'],
        [{ name: null }, 'body.name'],
        [{ name: 'nul\u0000' }, 'body.name'],
        [{ name: 'ok', read_only: 'yes' }, 'body.read_only'],
        [{ name: 'ok', read_only: 1 }, 'body.read_only'],
        [{ name: 'ok', user_id: 42 }, 'body.user_id'],
        [{ name: 'ok', user_id: 'u'.repeat(101) }, 'body.user_id'],
        [{ name: 'ok', key: generateApiKeySecret() }, 'body.key'],
        [{ name: 'ok', prefix: 'jsk_abcd' }, 'body.prefix'],
      ];
      for (const [body, path] of bodies) {
        const res = await api(t, ws.admin, 'POST', '/v1/api-keys', body);
        assert.equal(res.statusCode, 400, `${JSON.stringify(body)}: ${res.body}`);
        assert.equal(res.json().code, 'validation_failed');
        assert.equal(res.json().errors[0].path, path);
      }
      for (const raw of ['', 'null', '[]', '{"name":']) {
        assert.equal((await api(t, ws.admin, 'POST', '/v1/api-keys', raw, { 'content-type': 'application/json' })).statusCode, 400, raw);
      }
    });
  });

  describe('read-only keys', () => {
    it('read everything their user may, and are refused every write (403 read_only_key)', async () => {
      for (const who of [ws.admin, standard]) {
        const made = await api(t, who, 'POST', '/v1/api-keys', { name: 'dashboard', read_only: true });
        assert.equal(made.statusCode, 201);
        assert.equal(made.json().read_only, true);
        const ro: string = made.json().key;
        for (const url of ['/v1/users/me', '/v1/workspace', '/v1/users', `/v1/users/${manager.id}`, '/v1/api-keys', `/v1/api-keys/${made.json().id}`]) {
          assert.equal((await api(t, ro, 'GET', url)).statusCode, 200, url);
        }
        const writes: Array<[string, string, unknown]> = [
          ['POST', '/v1/api-keys', { name: 'escalate' }],
          ['POST', '/v1/users', { email: `ro${Date.now()}@x.test` }],
          ['PATCH', `/v1/users/${who.id}`, { first_name: 'RO' }],
          ['PATCH', `/v1/users/${standard.id}`, { first_name: 'RO' }],
          ['DELETE', `/v1/users/${restricted.id}`, undefined],
          ['DELETE', `/v1/api-keys/${made.json().id}`, undefined],
          ['POST', '/v1/projects', { name: 'RO project' }],
        ];
        for (const [method, url, body] of writes) {
          const res = await api(t, ro, method, url, body);
          assert.equal(res.statusCode, 403, `${method} ${url}`);
          assert.equal(res.json().code, 'read_only_key');
        }
        // Nothing happened.
        assert.equal((await api(t, who, 'GET', '/v1/users/me')).json().first_name, null);
        assert.equal((await api(t, ws.admin, 'GET', `/v1/users/${restricted.id}`)).json().status, 'active');
        assert.equal((await api(t, ro, 'GET', `/v1/api-keys/${made.json().id}`)).json().revoked_at, null);
      }
    });

    it('can be revoked by a full key of the same user', async () => {
      const made = await api(t, standard, 'POST', '/v1/api-keys', { name: 'ro', read_only: true });
      assert.equal((await api(t, standard, 'DELETE', `/v1/api-keys/${made.json().id}`)).statusCode, 204);
      assert.equal((await api(t, made.json().key, 'GET', '/v1/users/me')).json().code, 'revoked_api_key');
    });
  });

  describe('GET /v1/api-keys', () => {
    let lw: TestWorkspace;
    let alice: TestUser;
    let bob: TestUser;
    const keyIds: Record<string, string[]> = {};
    before(async () => {
      lw = await newWorkspace(t);
      alice = await newUser(t, lw, 'manager');
      bob = await newUser(t, lw, 'standard');
      // newUser made one key each (by the admin); add more, and revoke one of alice's.
      for (const who of [alice, alice, bob]) await api(t, who, 'POST', '/v1/api-keys', { name: 'extra' });
      const all = (await api(t, lw.admin, 'GET', '/v1/api-keys?limit=100')).json().data as Array<{ id: string; user_id: string }>;
      for (const k of all) (keyIds[k.user_id] ??= []).push(k.id);
      await api(t, lw.admin, 'DELETE', `/v1/api-keys/${keyIds[alice.id]![0]}`);
    });
    const ids = (res: { json(): { data: Array<{ id: string }> } }) => res.json().data.map((k) => k.id);

    it('shows non-admins only their own keys, newest first', async () => {
      for (const who of [alice, bob]) {
        const res = await api(t, who, 'GET', '/v1/api-keys');
        assert.equal(res.statusCode, 200);
        const got: string[] = ids(res);
        assert.deepEqual([...got].sort(), [...keyIds[who.id]!].sort());
        assert.deepEqual(got, [...got].sort().reverse());
        for (const k of res.json().data) assert.equal(k.user_id, who.id);
        assert.deepEqual(ids(await api(t, who, 'GET', `/v1/api-keys?user_id=${who.id}`)), got);
      }
    });

    it('forbids non-admins from asking for another user\'s keys (403)', async () => {
      for (const target of [lw.admin.id, bob.id, 'usr_01jd0000000000000000000000', 'garbage']) {
        const res = await api(t, alice, 'GET', `/v1/api-keys?user_id=${target}`);
        assert.equal(res.statusCode, 403, target);
        assert.equal(res.json().code, 'forbidden');
      }
    });

    it('shows admins everyone\'s keys, filtered by user_id and status', async () => {
      const all = await api(t, lw.admin, 'GET', '/v1/api-keys');
      const expected = Object.values(keyIds).flat();
      assert.deepEqual([...ids(all)].sort(), [...expected].sort());
      assert.deepEqual(ids(await api(t, lw.admin, 'GET', '/v1/api-keys?status=all')), ids(all));

      const ofAlice = await api(t, lw.admin, 'GET', `/v1/api-keys?user_id=${alice.id}`);
      assert.deepEqual([...ids(ofAlice)].sort(), [...keyIds[alice.id]!].sort());
      const revoked = await api(t, lw.admin, 'GET', '/v1/api-keys?status=revoked');
      assert.deepEqual(ids(revoked), [keyIds[alice.id]![0]]);
      assert.match(revoked.json().data[0].revoked_at, RFC3339_MS);
      const active = await api(t, lw.admin, 'GET', `/v1/api-keys?status=active&user_id=${alice.id}`);
      assert.deepEqual([...ids(active)].sort(), keyIds[alice.id]!.slice(1).sort());
      for (const k of active.json().data) assert.equal(k.revoked_at, null);
      const bobRevoked = await api(t, lw.admin, 'GET', `/v1/api-keys?status=revoked&user_id=${bob.id}`);
      assert.deepEqual(ids(bobRevoked), []);
    });

    it('filters by status for non-admins too', async () => {
      const res = await api(t, alice, 'GET', '/v1/api-keys?status=revoked');
      assert.deepEqual(ids(res), [keyIds[alice.id]![0]]);
    });

    it('finds nothing for an unknown, foreign or malformed user_id (admin)', async () => {
      for (const userId of ['usr_01jd0000000000000000000000', ws.admin.id, 'garbage']) {
        const res = await api(t, lw.admin, 'GET', `/v1/api-keys?user_id=${userId}`);
        assert.equal(res.statusCode, 200, `${userId}: ${res.body}`);
        assert.deepEqual(res.json().data, []);
      }
      // NUL is never text, in any query parameter (docs/conventions.md).
      assert.equal((await api(t, lw.admin, 'GET', '/v1/api-keys?user_id=%00')).statusCode, 400);
    });

    it('pages with limit and cursor', async () => {
      const everyone: string[] = ids(await api(t, lw.admin, 'GET', '/v1/api-keys'));
      const seen: string[] = [];
      let url = '/v1/api-keys?limit=2';
      for (let i = 0; i < 10; i++) {
        const page = (await api(t, lw.admin, 'GET', url)).json();
        seen.push(...page.data.map((k: { id: string }) => k.id));
        if (!page.has_more) break;
        url = `/v1/api-keys?limit=2&cursor=${encodeURIComponent(page.next_cursor)}`;
      }
      assert.deepEqual(seen, everyone);
    });

    it('never lists another workspace\'s keys', async () => {
      const res = await api(t, ws.admin, 'GET', '/v1/api-keys?limit=100');
      const got: string[] = ids(res);
      for (const id of Object.values(keyIds).flat()) assert.ok(!got.includes(id));
    });

    it('rejects bad filters (400)', async () => {
      for (const query of ['status=gone', 'limit=0', 'limit=101', 'cursor=nope', 'name=x', `user_id=${'u'.repeat(101)}`]) {
        const res = await api(t, lw.admin, 'GET', `/v1/api-keys?${query}`);
        assert.equal(res.statusCode, 400, `${query}: ${res.body}`);
      }
    });
  });

  describe('GET /v1/api-keys/{id}', () => {
    it('shows your own key, hides other users\' keys from non-admins (404), shows all to admins', async () => {
      const mine = await api(t, standard, 'POST', '/v1/api-keys', { name: 'mine' });
      const id = mine.json().id;
      assert.equal((await api(t, standard, 'GET', `/v1/api-keys/${id}`)).statusCode, 200);
      for (const who of [manager, restricted]) {
        const res = await api(t, who, 'GET', `/v1/api-keys/${id}`);
        assert.equal(res.statusCode, 404);
        assert.equal(res.json().code, 'not_found');
      }
      const byAdmin = await api(t, ws.admin, 'GET', `/v1/api-keys/${id}`);
      assert.equal(byAdmin.statusCode, 200);
      assert.equal(byAdmin.json().user_id, standard.id);
      assert.ok(byAdmin.headers.etag);
    });

    it('answers 404 for another workspace\'s key, even to its admin', async () => {
      const other = await newWorkspace(t);
      const id = other.provisioned.api_key.id;
      assert.equal((await api(t, ws.admin, 'GET', `/v1/api-keys/${id}`)).statusCode, 404);
      assert.equal((await api(t, ws.admin, 'DELETE', `/v1/api-keys/${id}`)).statusCode, 404);
      assert.equal((await api(t, other.admin, 'GET', '/v1/users/me')).statusCode, 200, 'still works');
    });

    it('answers 404 (not 400 or 500) for ids of the wrong shape', async () => {
      for (const id of WRONG_IDS) {
        for (const method of ['GET', 'DELETE']) {
          const res = await api(t, ws.admin, method, `/v1/api-keys/${id}`);
          assert.equal(res.statusCode, 404, `${method} ${id}: ${res.body}`);
          assert.equal(res.json().code, 'not_found');
        }
      }
    });
  });

  describe('DELETE /v1/api-keys/{id} (revoke)', () => {
    it('revokes your own key: 204, then 401 revoked_api_key at once, revoked_at shown; idempotent', async () => {
      const made = await api(t, standard, 'POST', '/v1/api-keys', { name: 'to revoke' });
      const { id, key } = made.json();
      assert.equal((await api(t, key, 'GET', '/v1/users/me')).statusCode, 200); // cached now
      const del = await api(t, standard, 'DELETE', `/v1/api-keys/${id}`);
      assert.equal(del.statusCode, 204);
      assert.equal(del.body, '');
      const denied = await api(t, key, 'GET', '/v1/users/me');
      assert.equal(denied.statusCode, 401);
      assert.equal(denied.json().code, 'revoked_api_key');
      assert.match(denied.headers['www-authenticate'] as string, /^Bearer /);

      const got = (await api(t, standard, 'GET', `/v1/api-keys/${id}`)).json();
      assert.match(got.revoked_at, RFC3339_MS);
      assert.equal(got.updated_at, got.revoked_at);

      assert.equal((await api(t, standard, 'DELETE', `/v1/api-keys/${id}`)).statusCode, 204);
      assert.equal((await api(t, standard, 'GET', `/v1/api-keys/${id}`)).json().revoked_at, got.revoked_at, 'revoked_at unchanged');
      assert.equal((await api(t, standard, 'GET', '/v1/users/me')).statusCode, 200, 'other keys unaffected');
    });

    it('lets a key revoke itself', async () => {
      const made = await api(t, restricted, 'POST', '/v1/api-keys', { name: 'self-destruct' });
      const { id, key } = made.json();
      assert.equal((await api(t, key, 'DELETE', `/v1/api-keys/${id}`)).statusCode, 204);
      assert.equal((await api(t, key, 'GET', '/v1/users/me')).json().code, 'revoked_api_key');
    });

    it('hides other users\' keys from non-admins (404) and leaves them working', async () => {
      const made = await api(t, standard, 'POST', '/v1/api-keys', { name: 'safe' });
      for (const who of [manager, restricted]) {
        const res = await api(t, who, 'DELETE', `/v1/api-keys/${made.json().id}`);
        assert.equal(res.statusCode, 404);
        assert.equal(res.json().code, 'not_found');
      }
      assert.equal((await api(t, made.json().key, 'GET', '/v1/users/me')).statusCode, 200);
    });

    it('lets admins revoke anyone\'s key, effective at once', async () => {
      const made = await api(t, manager, 'POST', '/v1/api-keys', { name: 'doomed' });
      assert.equal((await api(t, made.json().key, 'GET', '/v1/workspace')).statusCode, 200);
      assert.equal((await api(t, ws.admin, 'DELETE', `/v1/api-keys/${made.json().id}`)).statusCode, 204);
      assert.equal((await api(t, made.json().key, 'GET', '/v1/workspace')).json().code, 'revoked_api_key');
    });

    it('a non-admin can still revoke their own keys after a role change', async () => {
      const u = await newUser(t, ws, 'admin');
      const made = await api(t, u, 'POST', '/v1/api-keys', { name: 'before demotion' });
      await api(t, ws.admin, 'PATCH', `/v1/users/${u.id}`, { role: 'restricted' });
      assert.equal((await api(t, u, 'GET', '/v1/api-keys?user_id=' + ws.admin.id)).statusCode, 403, 'no longer admin');
      assert.equal((await api(t, u, 'DELETE', `/v1/api-keys/${made.json().id}`)).statusCode, 204);
    });
  });

  describe('the authenticator cache', () => {
    const revokeInDb = (id: string) => t.db.updateTable('api_keys').set({ revoked_at: new Date() }).where('id', '=', id).execute();

    it('with ttlMs=0 sees every change in the database at once', async () => {
      const auth = new ApiKeyAuthenticator(t.db, 0);
      const u = await newUser(t, ws, 'standard');
      const actor = await auth.authenticate(`Bearer ${u.key}`);
      assert.equal(actor.userId, u.id);
      assert.equal(actor.workspaceId, ws.id);
      assert.equal(actor.role, 'standard');
      assert.equal(actor.readOnly, false);

      await t.db.updateTable('users').set({ role: 'manager' }).where('id', '=', u.id).execute();
      assert.equal((await auth.authenticate(`Bearer ${u.key}`)).role, 'manager');

      await t.db.updateTable('users').set({ status: 'deactivated' }).where('id', '=', u.id).execute();
      assert.equal(await authOutcome(auth, u.key), 'revoked_api_key');
      await t.db.updateTable('users').set({ status: 'active' }).where('id', '=', u.id).execute();
      assert.equal(await authOutcome(auth, u.key), 'ok');

      const [key] = await t.db.selectFrom('api_keys').select('id').where('user_id', '=', u.id).execute();
      await revokeInDb(key!.id);
      assert.equal(await authOutcome(auth, u.key), 'revoked_api_key');

      assert.equal(await authOutcome(auth, generateApiKeySecret()), 'unknown_api_key');
      assert.equal(await authOutcome(auth, `${u.key.slice(0, -1)}${u.key.endsWith('a') ? 'b' : 'a'}`), 'malformed_api_key');
    });

    it('with the default TTL caches lookups until forget() drops them', async () => {
      const auth = new ApiKeyAuthenticator(t.db);
      const u = await newUser(t, ws, 'standard');
      const other = await newUser(t, ws, 'standard');
      const [key] = await t.db.selectFrom('api_keys').select('id').where('user_id', '=', u.id).execute();
      assert.equal(await authOutcome(auth, u.key), 'ok');
      assert.equal(await authOutcome(auth, other.key), 'ok');

      // Revoked behind this authenticator's back (as by another process): still cached.
      await revokeInDb(key!.id);
      assert.equal(await authOutcome(auth, u.key), 'ok');
      auth.forget({ apiKeyId: key!.id });
      assert.equal(await authOutcome(auth, u.key), 'revoked_api_key');

      // forget by user drops every key of that user, and nobody else's.
      const second = await api(t, ws.admin, 'POST', '/v1/api-keys', { name: 'b', user_id: other.id });
      assert.equal(await authOutcome(auth, second.json().key), 'ok');
      const bystander = await newUser(t, ws, 'restricted');
      assert.equal(await authOutcome(auth, bystander.key), 'ok');
      await t.db.updateTable('users').set({ status: 'deactivated' }).where('id', 'in', [other.id, bystander.id]).execute();
      auth.forget({ userId: other.id });
      assert.equal(await authOutcome(auth, other.key), 'revoked_api_key');
      assert.equal(await authOutcome(auth, second.json().key), 'revoked_api_key');
      assert.equal(await authOutcome(auth, bystander.key), 'ok', 'still cached');
    });

    it('does not cache a lookup that was in flight when a key was forgotten', async () => {
      const auth = new ApiKeyAuthenticator(t.db);
      const u = await newUser(t, ws, 'standard');
      const [key] = await t.db.selectFrom('api_keys').select('id').where('user_id', '=', u.id).execute();
      // The lookup starts before the revocation is committed and forgotten, and ends after.
      const inFlight = auth.authenticate(`Bearer ${u.key}`);
      auth.forget({ apiKeyId: key!.id });
      await inFlight;
      await revokeInDb(key!.id);
      assert.equal(await authOutcome(auth, u.key), 'revoked_api_key');
    });

    it('the app that revokes or deactivates sees it at once', async () => {
      const u = await newUser(t, ws, 'standard');
      const made = await api(t, u, 'POST', '/v1/api-keys', { name: 'warm' });
      for (let i = 0; i < 3; i++) assert.equal((await api(t, made.json().key, 'GET', '/v1/users/me')).statusCode, 200);
      await api(t, u, 'DELETE', `/v1/api-keys/${made.json().id}`);
      assert.equal((await api(t, made.json().key, 'GET', '/v1/users/me')).json().code, 'revoked_api_key');
      // And a role change reaches the user's other, cached key at once.
      assert.equal((await api(t, u, 'GET', '/v1/users/me')).json().role, 'standard');
      await api(t, ws.admin, 'PATCH', `/v1/users/${u.id}`, { role: 'manager' });
      assert.equal((await api(t, u, 'GET', '/v1/users/me')).json().role, 'manager');
      assert.equal((await api(t, u, 'POST', '/v1/users', { email: `m${Date.now()}@x.test` })).statusCode, 201);
    });
  });
});

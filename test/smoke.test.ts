import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { api, newWorkspace, startTestApp, type TestContext } from './helpers.ts';

describe('smoke', () => {
  let t: TestContext;
  before(async () => { t = await startTestApp(); });
  after(async () => t.close());

  it('answers /v1/users/me for a fresh workspace admin', async () => {
    const ws = await newWorkspace(t);
    const res = await api(t, ws.admin, 'GET', '/v1/users/me');
    assert.equal(res.statusCode, 200);
    assert.equal(res.json().role, 'admin');
  });
});

import request from 'supertest';
import { setupTestContext } from '../helpers/context';
import { bearer, createOrganization, createUser } from '../helpers/factory';
import { scimAuth } from './scim-support';

const ctx = setupTestContext();

describe('POST/GET/DELETE /api/api-tokens', () => {
  test('an Admin creates a token of the own organization: the secret once, only its SHA-256 stored', async () => {
    const organizationId = await createOrganization(ctx);
    const admin = await createUser(ctx, { role: 'Admin', organization_id: organizationId });
    const res = await request(ctx.app).post('/api/api-tokens').set(bearer(admin)).send({ name: 'Entra', scopes: ['scim'] });
    expect(res.status).toBe(201);
    expect(res.body.data.token).toMatch(/^dst_[A-Za-z0-9_-]{43}$/);
    expect(res.body.data.api_token).toMatchObject({ name: 'Entra', scopes: ['scim'], organization_id: organizationId, created_by: admin.id, expires_at: null, last_used_at: null });
    const row = await ctx.db('api_tokens').where({ id: res.body.data.api_token.id }).first();
    expect(row.token_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(row)).not.toContain(res.body.data.token);
    const list = await request(ctx.app).get('/api/api-tokens').set(bearer(admin));
    expect(list.status).toBe(200);
    expect(list.body.data.api_tokens.map((t: { id: number }) => t.id)).toEqual([res.body.data.api_token.id]);
    expect(JSON.stringify(list.body)).not.toContain(res.body.data.token);
  });

  test('a User is 403; no token is 401', async () => {
    const user = await createUser(ctx);
    expect((await request(ctx.app).post('/api/api-tokens').set(bearer(user)).send({ name: 'x', scopes: ['scim'] })).status).toBe(403);
    expect((await request(ctx.app).get('/api/api-tokens').set(bearer(user))).status).toBe(403);
    expect((await request(ctx.app).get('/api/api-tokens')).status).toBe(401);
  });

  test('each validation rule: name, scopes, expires_at, organization_id', async () => {
    const admin = await createUser(ctx, { role: 'Admin' });
    const post = (body: object) => request(ctx.app).post('/api/api-tokens').set(bearer(admin)).send(body);
    const fields = async (body: object) => ((await post(body)).body.errors ?? []).map((e: { field: string }) => e.field);
    expect(await fields({ scopes: ['scim'] })).toContain('name');
    expect(await fields({ name: 'x', scopes: [] })).toContain('scopes');
    expect(await fields({ name: 'x', scopes: ['admin'] })).toContain('scopes');
    expect(await fields({ name: 'x', scopes: ['scim'], expires_at: '2000-01-01T00:00:00Z' })).toContain('expires_at');
    expect(await fields({ name: 'x', scopes: ['scim'], organization_id: 'abc' })).toContain('organization_id');
    expect((await post({ name: 'x'.repeat(101), scopes: ['scim'] })).status).toBe(400);
  });

  test('an Admin cannot make a token of another organization (403), nor see or revoke one (404); a Super_admin can', async () => {
    const other = await createOrganization(ctx);
    const admin = await createUser(ctx, { role: 'Admin' });
    const root = await createUser(ctx, { role: 'Super_admin' });
    expect((await request(ctx.app).post('/api/api-tokens').set(bearer(admin)).send({ name: 'x', scopes: ['scim'], organization_id: other })).status).toBe(403);
    const made = await request(ctx.app).post('/api/api-tokens').set(bearer(root)).send({ name: 'x', scopes: ['scim'], organization_id: other });
    expect(made.status).toBe(201);
    expect(made.body.data.api_token.organization_id).toBe(other);
    const id = made.body.data.api_token.id;
    const listed = await request(ctx.app).get('/api/api-tokens').set(bearer(admin));
    expect(listed.body.data.api_tokens.map((t: { id: number }) => t.id)).not.toContain(id);
    expect((await request(ctx.app).delete(`/api/api-tokens/${id}`).set(bearer(admin))).status).toBe(404);
    expect((await request(ctx.app).get(`/api/api-tokens?organization_id=${other}`).set(bearer(root))).body.data.api_tokens[0].id).toBe(id);
    expect((await request(ctx.app).delete(`/api/api-tokens/${id}`).set(bearer(root))).status).toBe(200);
    expect((await request(ctx.app).delete(`/api/api-tokens/${id}`).set(bearer(root))).status).toBe(404);
    expect((await request(ctx.app).delete('/api/api-tokens/abc').set(bearer(root))).status).toBe(400);
  });

  test('a revoked token is 401 at its next use; an expired one is 401; last_used_at is written', async () => {
    const admin = await createUser(ctx, { role: 'Admin' });
    const made = await request(ctx.app).post('/api/api-tokens').set(bearer(admin)).send({ name: 'x', scopes: ['scim'] });
    const secret = made.body.data.token;
    expect((await request(ctx.app).get('/scim/v2/Users?count=1').set(scimAuth(secret))).status).toBe(200);
    expect((await ctx.db('api_tokens').where({ id: made.body.data.api_token.id }).first()).last_used_at).not.toBeNull();
    await request(ctx.app).delete(`/api/api-tokens/${made.body.data.api_token.id}`).set(bearer(admin)).expect(200);
    const after = await request(ctx.app).get('/scim/v2/Users?count=1').set(scimAuth(secret));
    expect(after.status).toBe(401);
    expect(after.body).toMatchObject({ schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'], status: '401' });

    const soon = await request(ctx.app).post('/api/api-tokens').set(bearer(admin)).send({ name: 'y', scopes: ['scim'], expires_at: new Date(Date.now() + 60_000).toISOString() });
    await ctx.db('api_tokens').where({ id: soon.body.data.api_token.id }).update({ expires_at: new Date(Date.now() - 1000) });
    expect((await request(ctx.app).get('/scim/v2/Users').set(scimAuth(soon.body.data.token))).status).toBe(401);
  });

  test('a token reaches /scim/v2 only: at /api it is 401; a wrong or missing secret is 401 at /scim/v2', async () => {
    const admin = await createUser(ctx, { role: 'Admin' });
    const secret = (await request(ctx.app).post('/api/api-tokens').set(bearer(admin)).send({ name: 'x', scopes: ['scim'] })).body.data.token;
    expect((await request(ctx.app).get('/api/contacts').set(scimAuth(secret))).status).toBe(401);
    expect((await request(ctx.app).get('/scim/v2/Users').set(scimAuth(`${secret}x`))).status).toBe(401);
    expect((await request(ctx.app).get('/scim/v2/Users')).status).toBe(401);
    expect((await request(ctx.app).get('/scim/v2/Users').set(bearer(admin))).status).toBe(401);
  });

  test('creating and revoking are in the audit trail', async () => {
    const admin = await createUser(ctx, { role: 'Admin' });
    const made = await request(ctx.app).post('/api/api-tokens').set(bearer(admin)).send({ name: 'audited', scopes: ['scim'] });
    const id = made.body.data.api_token.id;
    await request(ctx.app).delete(`/api/api-tokens/${id}`).set(bearer(admin)).expect(200);
    const rows = await ctx.db('audit_events').where({ target_type: 'api_token', target_id: id }).orderBy('id');
    expect(rows.map((r) => r.action)).toEqual(['api_token.create', 'api_token.revoke']);
    expect(rows.every((r) => Number(r.actor_id) === admin.id)).toBe(true);
  });
});

import request from 'supertest';
import { setupTestContext } from '../helpers/context';
import { anyDesignationId, bearer, createDepartment, createOrganization, createUnit, createUser } from '../helpers/factory';

/** POST /api/api-tokens validates what it stores (issue 23's review); GET pages as every list does. */
const ctx = setupTestContext();

const fieldsOf = (res: request.Response) => (res.body.errors ?? []).map((e: { field: string }) => e.field);

describe('POST /api/api-tokens: references checked at creation', () => {
  test('an unknown organization_id is 400 Validation failed (organization_id), not 500', async () => {
    const root = await createUser(ctx, { role: 'Super_admin' });
    const res = await request(ctx.app).post('/api/api-tokens').set(bearer(root)).send({ name: 'x', scopes: ['scim'], organization_id: 987654321 });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ message: 'Validation failed' });
    expect(fieldsOf(res)).toEqual(['organization_id']);
  });

  test('each scim_defaults id must exist, and the department must be of the unit: 400 with the field', async () => {
    const admin = await createUser(ctx, { role: 'Admin' });
    const unit = await createUnit(ctx);
    const elsewhere = await createUnit(ctx);
    const department = await createDepartment(ctx, elsewhere.id);
    const post = (scim_defaults: object) => request(ctx.app).post('/api/api-tokens').set(bearer(admin)).send({ name: 'x', scopes: ['scim'], scim_defaults });
    expect(fieldsOf(await post({ unit_id: 987654321 }))).toEqual(['scim_defaults.unit_id']);
    expect(fieldsOf(await post({ designation_id: 987654321 }))).toEqual(['scim_defaults.designation_id']);
    expect(fieldsOf(await post({ rank_id: 987654321 }))).toEqual(['scim_defaults.rank_id']);
    expect(fieldsOf(await post({ department_id: 987654321 }))).toEqual(['scim_defaults.department_id']);
    expect(fieldsOf(await post({ unit_id: unit.id, department_id: department.id }))).toEqual(['scim_defaults.department_id']);
    const good = await post({ unit_id: elsewhere.id, department_id: department.id, designation_id: await anyDesignationId(ctx) });
    expect(good.status).toBe(201);
  });
});

describe('GET /api/api-tokens: paged like every list', () => {
  test('pagination object and Link header; page and limit validated', async () => {
    const organizationId = await createOrganization(ctx);
    const admin = await createUser(ctx, { role: 'Admin', organization_id: organizationId });
    for (const name of ['a', 'b', 'c']) expect((await request(ctx.app).post('/api/api-tokens').set(bearer(admin)).send({ name, scopes: ['scim'] })).status).toBe(201);
    const first = await request(ctx.app).get('/api/api-tokens?limit=2').set(bearer(admin));
    expect(first.status).toBe(200);
    expect(first.body.data.pagination).toEqual({ page: 1, limit: 2, total: 3, total_pages: 2, has_more: true });
    expect(first.body.data.api_tokens.map((t: { name: string }) => t.name)).toEqual(['c', 'b']);
    expect(first.headers.link).toContain('rel="next"');
    const second = await request(ctx.app).get('/api/api-tokens?limit=2&page=2').set(bearer(admin));
    expect(second.body.data.api_tokens.map((t: { name: string }) => t.name)).toEqual(['a']);
    expect(second.body.data.pagination.has_more).toBe(false);
    expect(fieldsOf(await request(ctx.app).get('/api/api-tokens?limit=0').set(bearer(admin)))).toEqual(['limit']);
    expect(fieldsOf(await request(ctx.app).get('/api/api-tokens?page=x').set(bearer(admin)))).toEqual(['page']);
  });
});

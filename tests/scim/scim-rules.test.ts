import request from 'supertest';
import { setupTestContext } from '../helpers/context';
import { bearer, createDepartment, createUnit, createUser, unique } from '../helpers/factory';
import { ENTERPRISE, PATCH_OP, rfcUser, scimAuth, scimOrganization } from './scim-support';

const ctx = setupTestContext();
let org: Awaited<ReturnType<typeof scimOrganization>>;
let other: Awaited<ReturnType<typeof scimOrganization>>;
beforeAll(async () => {
  org = await scimOrganization(ctx);
  other = await scimOrganization(ctx);
});
const auth = () => scimAuth(org.secret);
const post = (body: object, secret = org.secret) => request(ctx.app).post('/scim/v2/Users').set(scimAuth(secret)).send(body);
const patch = (id: string, Operations: object[]) => request(ctx.app).patch(`/scim/v2/Users/${id}`).set(auth()).send({ schemas: [PATCH_OP], Operations });

describe('SCIM: the token, names and unique keys', () => {
  test('a live token without the scim scope is 403 in the SCIM error schema', async () => {
    await ctx.db('api_tokens').where({ id: other.tokenId }).update({ scopes: 'other' });
    const res = await request(ctx.app).get('/scim/v2/Users').set(scimAuth(other.secret));
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'], status: '403' });
    await ctx.db('api_tokens').where({ id: other.tokenId }).update({ scopes: 'scim' });
  });

  test('externalId is unique within an organization (409 uniqueness) and free across organizations', async () => {
    const externalId = unique('ext');
    expect((await post(rfcUser({ externalId }))).status).toBe(201);
    const again = await post(rfcUser({ externalId }));
    expect(again.body).toMatchObject({ status: '409', scimType: 'uniqueness' });
    expect((await post(rfcUser({ externalId }), other.secret)).status).toBe(201);
  });

  test('division, department and title find the unit, department and designation by name; unknown names leave the defaults', async () => {
    const unit = await createUnit(ctx);
    const dept = await createDepartment(ctx, unit.id);
    const designation = (await ctx.db('designations').orderBy('id', 'desc').first('id', 'name'));
    const u = (await post(rfcUser({ title: designation.name.toUpperCase(), [ENTERPRISE]: { employeeNumber: unique('E'), division: unit.name, department: dept.name } }))).body;
    expect(u[ENTERPRISE]).toMatchObject({ division: unit.name, department: dept.name });
    expect(u.title).toBe(designation.name);
    const v = (await post(rfcUser({ title: 'No Such Title', [ENTERPRISE]: { employeeNumber: unique('E'), division: 'No Such Unit', department: 'No Such Dept' } }))).body;
    const row = await ctx.db('users').where({ id: Number(v.id) }).first();
    expect(Number(row.unit_id)).toBe(org.unitId);
    expect(row.department_id).toBeNull();
  });

  test('without employeeNumber the externalId stands for it; with neither it is 400 invalidValue', async () => {
    const externalId = unique('ext');
    const u = await post(rfcUser({ externalId, [ENTERPRISE]: {} }));
    expect(u.status).toBe(201);
    expect(u.body[ENTERPRISE].employeeNumber).toBe(externalId);
    expect((await post(rfcUser({ [ENTERPRISE]: {} }))).body).toMatchObject({ status: '400', scimType: 'invalidValue' });
  });

  test('a User created by SCIM has no password: sign-in is 401, not 500', async () => {
    const u = (await post(rfcUser())).body;
    const res = await request(ctx.app).post('/api/auth/login').send({ email: u.userName, password: 'Passw0rd!' });
    expect(res.status).toBe(401);
  });

  test('a deleted User created again comes back as the same contact', async () => {
    const body = rfcUser();
    const u = (await post(body)).body;
    expect((await request(ctx.app).delete(`/scim/v2/Users/${u.id}`).set(auth())).status).toBe(204);
    const again = await post(body);
    expect(again.status).toBe(201);
    expect(again.body).toMatchObject({ id: u.id, active: true });
  });
});

describe('SCIM: the privilege ceiling', () => {
  test('a token (an Admin) cannot change, deactivate or delete a Super_admin of its organization: 403', async () => {
    const root = await createUser(ctx, { role: 'Super_admin', organization_id: org.organizationId, unit_id: org.unitId });
    expect((await patch(String(root.id), [{ op: 'replace', path: 'displayName', value: 'Taken Over' }])).status).toBe(403);
    expect((await patch(String(root.id), [{ op: 'Replace', path: 'active', value: 'False' }])).status).toBe(403);
    expect((await request(ctx.app).delete(`/scim/v2/Users/${root.id}`).set(auth())).status).toBe(403);
    const row = await ctx.db('users').where({ id: root.id }).first();
    expect(Boolean(Number(row.is_active))).toBe(true);
    expect(row.deprovisioned_at).toBeNull();
  });
});

describe('SCIM PATCH: refusals and filters', () => {
  test('a remove without a path is 400 noTarget; an unknown op is invalidSyntax; no Operations is invalidSyntax', async () => {
    const u = (await post(rfcUser())).body;
    expect((await patch(u.id, [{ op: 'remove' }])).body).toMatchObject({ status: '400', scimType: 'noTarget' });
    expect((await patch(u.id, [{ op: 'move', path: 'x' }])).body).toMatchObject({ status: '400', scimType: 'invalidSyntax' });
    expect((await patch(u.id, [])).body).toMatchObject({ status: '400', scimType: 'invalidSyntax' });
    expect((await patch(u.id, [{ op: 'replace', path: 'active', value: 'maybe' }])).body).toMatchObject({ status: '400', scimType: 'invalidValue' });
    expect((await patch(u.id, [{ op: 'remove', path: `${ENTERPRISE}:employeeNumber` }])).body).toMatchObject({ status: '400', scimType: 'mutability' });
  });

  test('a no-path value keyed by the enterprise URN sets its attributes; phoneNumbers[type eq "mobile"] filters', async () => {
    const u = (await post(rfcUser())).body;
    const sn = unique('S');
    const res = await patch(u.id, [{ op: 'Add', value: { [ENTERPRISE]: { employeeNumber: sn } } }]);
    expect(res.status).toBe(200);
    expect(res.body[ENTERPRISE].employeeNumber).toBe(sn);
    const mobile = `+88019${Date.now().toString().slice(-8)}`;
    await patch(u.id, [{ op: 'replace', path: 'phoneNumbers[type eq "mobile"].value', value: mobile }]).expect(200);
    const found = await request(ctx.app).get('/scim/v2/Users').query({ filter: `phoneNumbers[type eq "mobile"].value eq "${mobile}"` }).set(auth());
    expect(found.body.Resources.map((r: { id: string }) => r.id)).toEqual([u.id]);
    const bySn = await request(ctx.app).get('/scim/v2/Users').query({ filter: `${ENTERPRISE}:employeeNumber eq "${sn}"` }).set(auth());
    expect(bySn.body.totalResults).toBe(1);
    const notMe = await request(ctx.app).get('/scim/v2/Users').query({ filter: `not (userName eq "${u.userName}")` }).set(auth());
    expect(notMe.body.Resources.map((r: { id: string }) => r.id)).not.toContain(u.id);
  });

  test('a deactivated User leaves the directory listing; the trail shows the token to an Admin', async () => {
    const u = (await post(rfcUser())).body;
    await patch(u.id, [{ op: 'Replace', path: 'active', value: 'False' }]).expect(200);
    const contact = await request(ctx.app).get(`/api/contacts/${u.id}`).set(bearer(org.admin));
    expect(contact.status === 404 || contact.body.data?.contact?.is_active === false).toBe(true);
    const trail = await request(ctx.app).get(`/api/audit-events?target_type=contact&target_id=${u.id}`).set(bearer(org.admin));
    expect(trail.status).toBe(200);
    expect(trail.body.data.events.map((e: { action: string }) => e.action)).toEqual(['contact.deactivate', 'contact.provision']);
    expect(trail.body.data.events.every((e: { actor_token_id: number; actor_id: null }) => e.actor_token_id === org.tokenId && e.actor_id === null)).toBe(true);
  });
});

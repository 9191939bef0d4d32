import request from 'supertest';
import { setupTestContext } from '../helpers/context';
import { bearer, createUser, ROLE } from '../helpers/factory';
import { treeProblems } from '../helpers/tree';
import { ENTERPRISE, PATCH_OP, rfcUser, scimAuth, scimOrganization, USER } from './scim-support';

/**
 * The defects a review found in the SCIM provider (issue 23's review): who may deactivate through
 * a token, required attributes, discovery, filters, If-Match, inactive users, the feed's type of
 * a reactivation, and contact rules on the SCIM path.
 */
const ctx = setupTestContext();
let org: Awaited<ReturnType<typeof scimOrganization>>;
let adminOrg: Awaited<ReturnType<typeof scimOrganization>>;
beforeAll(async () => {
  org = await scimOrganization(ctx);
  adminOrg = await scimOrganization(ctx, 'Admin');
});
const scim = () => request(ctx.app);
const post = (body: object, secret = org.secret) => scim().post('/scim/v2/Users').set(scimAuth(secret)).send(body);
const patch = (id: string, Operations: object[], secret = org.secret) => scim().patch(`/scim/v2/Users/${id}`).set(scimAuth(secret)).send({ schemas: [PATCH_OP], Operations });
const isActive = async (id: string | number) => Boolean(Number((await ctx.db('users').where({ id }).first('is_active')).is_active));

describe('a token deactivates only when a Super_admin (contacts.delete) made it', () => {
  test("an Admin's token: DELETE, PATCH active false and PUT active false are 403 in the SCIM error schema; nothing changes", async () => {
    const made = await scim().get('/api/api-tokens').set(bearer(adminOrg.admin));
    expect(made.body.data.api_tokens[0]).toMatchObject({ id: adminOrg.tokenId, can_deactivate: false });
    const u = (await post(rfcUser(), adminOrg.secret)).body;
    const colleague = await createUser(ctx, { role: 'Admin', organization_id: adminOrg.organizationId, unit_id: adminOrg.unitId });
    for (const id of [u.id, String(colleague.id)]) {
      const del = await scim().delete(`/scim/v2/Users/${id}`).set(scimAuth(adminOrg.secret));
      expect(del.status).toBe(403);
      expect(del.body).toMatchObject({ schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'], status: '403' });
      expect(del.body.detail).toMatch(/Super_admin/);
      expect((await patch(id, [{ op: 'Replace', path: 'active', value: 'False' }], adminOrg.secret)).status).toBe(403);
      expect(await isActive(id)).toBe(true);
    }
    const put = await scim().put(`/scim/v2/Users/${u.id}`).set(scimAuth(adminOrg.secret)).send({ ...u, active: false });
    expect(put.status).toBe(403);
    expect(await isActive(u.id)).toBe(true);
    // other changes still go through
    expect((await patch(u.id, [{ op: 'replace', path: 'displayName', value: 'Still Changeable' }], adminOrg.secret)).status).toBe(200);
  });

  test('the right is fixed at creation: an Admin promoted later does not widen the token', async () => {
    await ctx.db('users').where({ id: adminOrg.admin.id }).update({ role_id: ROLE.Super_admin });
    try {
      const u = (await post(rfcUser(), adminOrg.secret)).body;
      expect((await scim().delete(`/scim/v2/Users/${u.id}`).set(scimAuth(adminOrg.secret))).status).toBe(403);
    } finally {
      await ctx.db('users').where({ id: adminOrg.admin.id }).update({ role_id: ROLE.Admin });
    }
  });

  test("a Super_admin's token (can_deactivate true) deactivates and deletes Users and Admins, never a Super_admin", async () => {
    const listed = await scim().get('/api/api-tokens').set(bearer(org.admin));
    expect(listed.body.data.api_tokens.find((t: { id: number }) => t.id === org.tokenId)).toMatchObject({ can_deactivate: true });
    const u = (await post(rfcUser())).body;
    expect((await patch(u.id, [{ op: 'replace', path: 'active', value: false }])).body.active).toBe(false);
    const admin = await createUser(ctx, { role: 'Admin', organization_id: org.organizationId, unit_id: org.unitId });
    expect((await scim().delete(`/scim/v2/Users/${admin.id}`).set(scimAuth(org.secret))).status).toBe(204);
    const root = await createUser(ctx, { role: 'Super_admin', organization_id: org.organizationId, unit_id: org.unitId });
    expect((await scim().delete(`/scim/v2/Users/${root.id}`).set(scimAuth(org.secret))).status).toBe(403);
    expect(await isActive(root.id)).toBe(true);
  });
});

describe('required attributes cannot be emptied; contact rules on the SCIM path', () => {
  test('PATCH remove of name, userName or emails is 400 mutability, not 500; the user is unchanged', async () => {
    const u = (await post(rfcUser())).body;
    for (const path of ['name', 'userName', 'emails', 'displayName']) {
      const res = await patch(u.id, [...(path === 'displayName' ? [{ op: 'remove', path: 'name' }] : []), { op: 'remove', path }]);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ status: '400', scimType: 'mutability' });
    }
    expect((await scim().get(`/scim/v2/Users/${u.id}`).set(scimAuth(org.secret))).body.displayName).toBe(u.displayName);
  });

  test('PUT without a name, or a replace with an empty one, is 400 invalidValue', async () => {
    const u = (await post(rfcUser())).body;
    const { name: _n, displayName: _d, ...rest } = u;
    const put = await scim().put(`/scim/v2/Users/${u.id}`).set(scimAuth(org.secret)).send(rest);
    expect(put.body).toMatchObject({ status: '400', scimType: 'invalidValue' });
    expect((await patch(u.id, [{ op: 'replace', path: 'userName', value: '' }])).body).toMatchObject({ status: '400', scimType: 'invalidValue' });
  });

  test('a one-character name is 400 invalidValue (2-255, as the contact rules say); no phone is allowed, as register allows it', async () => {
    const one = await post(rfcUser({ name: { formatted: 'J' }, displayName: 'J' }));
    expect(one.body).toMatchObject({ status: '400', scimType: 'invalidValue' });
    expect(one.body.detail).toMatch(/name/);
    const { phoneNumbers: _p, ...noPhone } = rfcUser();
    const made = await post(noPhone);
    expect(made.status).toBe(201);
    expect(made.body.phoneNumbers).toEqual([]);
    expect((await ctx.db('users').where({ id: made.body.id }).first('phone')).phone).toBeNull();
  });
});

describe('discovery, filters, If-Match, inactive users, the change feed', () => {
  test('meta.location of each ResourceType and Schema answers it; an unknown id is 404 in the SCIM error schema', async () => {
    const types = (await scim().get('/scim/v2/ResourceTypes').set(scimAuth(org.secret))).body.Resources;
    const schemas = (await scim().get('/scim/v2/Schemas').set(scimAuth(org.secret))).body.Resources;
    for (const doc of [...types, ...schemas]) {
      const res = await scim().get(new URL(doc.meta.location).pathname).set(scimAuth(org.secret));
      expect(res.status).toBe(200);
      expect(res.body.id).toBe(doc.id);
    }
    for (const path of ['/scim/v2/ResourceTypes/Group', `/scim/v2/Schemas/${USER}x`]) {
      const res = await scim().get(path).set(scimAuth(org.secret));
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'], status: '404' });
    }
  });

  test('active pr matches inactive users too; not() of an always-true condition matches none; not(eq) keeps users without the attribute', async () => {
    const off = (await post(rfcUser({ active: false }))).body;
    const on = (await post(rfcUser())).body;
    const ids = async (filter: string) => (await scim().get('/scim/v2/Users').query({ filter }).set(scimAuth(org.secret))).body.Resources.map((r: { id: string }) => r.id);
    expect(await ids('active pr')).toEqual(expect.arrayContaining([off.id, on.id]));
    expect(await ids('not (emails[type eq "work"])')).toEqual([]);
    expect(await ids('emails[type eq "work"]')).toEqual(expect.arrayContaining([off.id, on.id]));
    expect(await ids('not (externalId eq "nobody")')).toEqual(expect.arrayContaining([off.id, on.id]));
    expect(await ids(`not (userName eq "${on.userName}")`)).not.toContain(on.id);
  });

  test('a stale If-Match is 412 even when the PUT or PATCH changes nothing', async () => {
    const u = (await post(rfcUser())).body;
    const fresh = (await patch(u.id, [{ op: 'replace', path: 'displayName', value: 'Changed Once' }])).body;
    const stale = u.meta.version;
    expect((await scim().put(`/scim/v2/Users/${u.id}`).set(scimAuth(org.secret)).set('If-Match', stale).send(fresh)).status).toBe(412);
    const same = await scim().patch(`/scim/v2/Users/${u.id}`).set(scimAuth(org.secret)).set('If-Match', stale).send({ schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'displayName', value: 'Changed Once' }] });
    expect(same.status).toBe(412);
    expect((await scim().put(`/scim/v2/Users/${u.id}`).set(scimAuth(org.secret)).set('If-Match', fresh.meta.version).send(fresh)).status).toBe(200);
  });

  test('a PATCH of a deactivated User (as Entra ID sends a disabled user\'s changes) changes it, and it stays deactivated', async () => {
    const u = (await post(rfcUser({ active: false }))).body;
    const res = await patch(u.id, [{ op: 'Replace', path: 'displayName', value: 'Changed While Disabled' }, { op: 'Replace', path: 'active', value: 'False' }]);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ active: false, displayName: 'Changed While Disabled' });
    const row = await ctx.db('users').where({ id: Number(u.id) }).first('name', 'is_active');
    expect({ name: row.name, active: Boolean(Number(row.is_active)) }).toEqual({ name: 'Changed While Disabled', active: false });
    // recorded as an update, not a reactivation, and read back as the provider sent it
    const trail = await ctx.db('audit_events').where({ target_type: 'contact', target_id: Number(u.id) }).orderBy('id', 'desc').first('action');
    expect(trail.action).toBe('contact.update');
    const feed = await ctx.db('contact_changes').where({ contact_id: Number(u.id) }).orderBy('version', 'desc').first('type');
    expect(feed.type).toBe('updated');
    expect((await scim().get(`/scim/v2/Users/${u.id}`).set(scimAuth(org.secret))).body).toMatchObject({ active: false, displayName: 'Changed While Disabled' });
    // its manager too: the deactivated contact moves in the tree, which stays sound
    const boss = (await post(rfcUser())).body;
    const managed = await patch(u.id, [{ op: 'replace', path: `${ENTERPRISE}:manager`, value: { value: boss.id } }]);
    expect(managed.status).toBe(200);
    expect(managed.body[ENTERPRISE].manager.value).toBe(boss.id);
    expect(Number((await ctx.db('users').where({ id: Number(u.id) }).first('parent_id')).parent_id)).toBe(Number(boss.id));
    expect(await treeProblems(ctx.db)).toEqual([]);
    // nothing to change is fine, and the change together with active true reactivates it
    expect((await patch(u.id, [{ op: 'replace', path: 'active', value: false }])).status).toBe(200);
    const back = await patch(u.id, [{ op: 'replace', path: 'displayName', value: 'Back Again' }, { op: 'replace', path: 'active', value: true }]);
    expect(back.body).toMatchObject({ active: true, displayName: 'Back Again' });
  });

  test('a reactivation is `restored` in the change feed', async () => {
    const u = (await post(rfcUser({ active: false }))).body;
    expect((await patch(u.id, [{ op: 'replace', path: 'active', value: true }])).status).toBe(200);
    const types = (await ctx.db('contact_changes').where({ contact_id: Number(u.id) }).orderBy('version').select('type')).map((r) => r.type);
    expect(types[types.length - 1]).toBe('restored');
    expect(types.filter((t) => t === 'created')).toHaveLength(1);
  });

  test('an enterprise department that is unknown still answers 200 (documented as not kept)', async () => {
    const u = (await post(rfcUser())).body;
    const res = await patch(u.id, [{ op: 'replace', path: `${ENTERPRISE}:department`, value: 'No Such Department' }]);
    expect(res.status).toBe(200);
  });
});

import request from 'supertest';
import { setupTestContext } from '../helpers/context';
import { ENTERPRISE, PATCH_OP, rfcUser, SCIM_JSON, scimAuth, scimOrganization } from './scim-support';

const ctx = setupTestContext();
let org: Awaited<ReturnType<typeof scimOrganization>>;
let other: Awaited<ReturnType<typeof scimOrganization>>;
beforeAll(async () => {
  org = await scimOrganization(ctx);
  other = await scimOrganization(ctx);
});
const scim = () => request(ctx.app);
const auth = () => scimAuth(org.secret);
const create = async (body: object = rfcUser()) => {
  const res = await scim().post('/scim/v2/Users').set(auth()).set('Content-Type', SCIM_JSON).send(JSON.stringify(body));
  if (res.status !== 201) throw new Error(`${res.status} ${JSON.stringify(res.body)}`);
  return res;
};

describe('SCIM discovery', () => {
  test('ServiceProviderConfig, ResourceTypes and Schemas describe what is supported', async () => {
    const config = await scim().get('/scim/v2/ServiceProviderConfig').set(auth());
    expect(config.status).toBe(200);
    expect(config.headers['content-type']).toMatch(/application\/scim\+json/);
    expect(config.body).toMatchObject({ patch: { supported: true }, filter: { supported: true, maxResults: 200 }, etag: { supported: true }, bulk: { supported: false }, sort: { supported: false } });
    expect((await scim().get('/scim/v2/ResourceTypes').set(auth())).body.Resources[0]).toMatchObject({ id: 'User', endpoint: '/Users' });
    const schemas = (await scim().get('/scim/v2/Schemas').set(auth())).body.Resources.map((s: { id: string }) => s.id);
    expect(schemas).toEqual(['urn:ietf:params:scim:schemas:core:2.0:User', ENTERPRISE]);
  });
});

describe('SCIM Users: a plain RFC client', () => {
  test('POST makes a working contact from userName, name, emails, phoneNumbers and employeeNumber: 201, Location, ETag', async () => {
    const body = rfcUser();
    const res = await create(body);
    expect(res.headers.location).toMatch(new RegExp(`/scim/v2/Users/${res.body.id}$`));
    expect(res.headers.etag).toBe(res.body.meta.version);
    expect(res.body).toMatchObject({ userName: body.userName.toLowerCase(), active: true, displayName: `Jane ${body.name.familyName}`, [ENTERPRISE]: { employeeNumber: body[ENTERPRISE].employeeNumber } });
    const row = await ctx.db('users').where({ id: Number(res.body.id) }).first();
    expect(row).toMatchObject({ organization_id: org.organizationId, unit_id: org.unitId, phone: '+8801711000000', mobile: '+8801811000000', password_hash: null });
    const got = await scim().get(`/scim/v2/Users/${res.body.id}`).set(auth());
    expect(got.status).toBe(200);
    expect(got.body.userName).toBe(body.userName.toLowerCase());
  });

  test('a taken userName is 409 uniqueness; no userName is 400 invalidValue; bad JSON is 400 invalidSyntax', async () => {
    const body = rfcUser();
    await create(body);
    const again = await scim().post('/scim/v2/Users').set(auth()).send({ ...rfcUser(), userName: body.userName.toUpperCase() });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'], status: '409', scimType: 'uniqueness' });
    const none = await scim().post('/scim/v2/Users').set(auth()).send({ ...rfcUser(), userName: undefined });
    expect(none.body).toMatchObject({ status: '400', scimType: 'invalidValue' });
    const bad = await scim().post('/scim/v2/Users').set(auth()).set('Content-Type', SCIM_JSON).send('{"userName":');
    expect(bad.body).toMatchObject({ status: '400', scimType: 'invalidSyntax' });
  });

  test('filters: eq co sw pr and or on userName, externalId, emails.value, name, displayName, active, meta.lastModified', async () => {
    const a = await create(rfcUser({ externalId: `ext-${Date.now()}` }));
    const u = a.body;
    const count = async (filter: string) => {
      const res = await scim().get('/scim/v2/Users').query({ filter }).set(auth());
      expect(res.status).toBe(200);
      return res.body.Resources.map((r: { id: string }) => r.id).includes(u.id);
    };
    expect(await count(`userName eq "${u.userName.toUpperCase()}"`)).toBe(true);
    expect(await count(`externalId eq "${u.externalId}"`)).toBe(true);
    expect(await count(`emails.value co "${u.userName.slice(3, 12)}"`)).toBe(true);
    expect(await count(`emails[type eq "work"].value eq "${u.userName}"`)).toBe(true);
    expect(await count(`name.familyName eq "${u.name.familyName}"`)).toBe(true);
    expect(await count(`name.givenName sw "jan" and displayName co "${u.name.familyName}"`)).toBe(true);
    expect(await count(`displayName sw "nobody-x" or userName eq "${u.userName}"`)).toBe(true);
    expect(await count(`externalId pr and active eq true`)).toBe(true);
    expect(await count(`meta.lastModified gt "${new Date(Date.parse(u.meta.lastModified) - 1000).toISOString()}"`)).toBe(true);
    expect(await count(`meta.lastModified gt "${new Date(Date.now() + 60_000).toISOString()}"`)).toBe(false);
    expect(await count(`userName eq "nobody@example.test"`)).toBe(false);
    const bad = await scim().get('/scim/v2/Users').query({ filter: 'userName eq' }).set(auth());
    expect(bad.body).toMatchObject({ status: '400', scimType: 'invalidFilter' });
    const unknown = await scim().get('/scim/v2/Users').query({ filter: 'nickName eq "x"' }).set(auth());
    expect(unknown.body).toMatchObject({ status: '400', scimType: 'invalidFilter' });
  });

  test('paging: startIndex and count, totalResults', async () => {
    for (let i = 0; i < 3; i += 1) await create();
    const all = await scim().get('/scim/v2/Users').set(auth());
    const page = await scim().get('/scim/v2/Users?startIndex=2&count=2').set(auth());
    expect(page.body).toMatchObject({ totalResults: all.body.totalResults, startIndex: 2, itemsPerPage: 2 });
    expect(page.body.Resources.map((r: { id: string }) => r.id)).toEqual(all.body.Resources.slice(1, 3).map((r: { id: string }) => r.id));
    expect((await scim().get('/scim/v2/Users?count=abc').set(auth())).status).toBe(400);
  });

  test('PATCH with a path, without one, and with a value filter; If-Match; DELETE then 404', async () => {
    const u = (await create()).body;
    const p1 = await scim().patch(`/scim/v2/Users/${u.id}`).set(auth()).send({ schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'displayName', value: 'Jane Q Public' }] });
    expect(p1.status).toBe(200);
    expect(p1.body.displayName).toBe('Jane Q Public');
    const p2 = await scim().patch(`/scim/v2/Users/${u.id}`).set(auth()).send({ schemas: [PATCH_OP], Operations: [{ op: 'replace', value: { title: 'Nonexistent title', 'name.givenName': 'Janet' } }] });
    expect(p2.status).toBe(200);
    const newMail = `x${u.userName}`;
    const p3 = await scim().patch(`/scim/v2/Users/${u.id}`).set(auth()).send({ schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'emails[type eq "work"].value', value: newMail }, { op: 'replace', path: 'userName', value: newMail }] });
    expect(p3.status).toBe(200);
    expect(p3.body.userName).toBe(newMail);
    const stale = await scim().patch(`/scim/v2/Users/${u.id}`).set(auth()).set('If-Match', u.meta.version).send({ schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'displayName', value: 'Stale' }] });
    expect(stale.status).toBe(412);
    const ro = await scim().patch(`/scim/v2/Users/${u.id}`).set(auth()).send({ schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'id', value: '1' }] });
    expect(ro.body).toMatchObject({ status: '400', scimType: 'mutability' });
    expect((await scim().delete(`/scim/v2/Users/${u.id}`).set(auth()).set('If-Match', p3.body.meta.version)).status).toBe(204);
    expect((await scim().get(`/scim/v2/Users/${u.id}`).set(auth())).status).toBe(404);
    expect((await scim().delete(`/scim/v2/Users/${u.id}`).set(auth())).status).toBe(404);
    // a change of a user its provider deleted is 404 too, not a change of a hidden contact
    expect((await scim().patch(`/scim/v2/Users/${u.id}`).set(auth()).send({ schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'displayName', value: 'Gone' }] })).status).toBe(404);
  });
});

describe('SCIM Users: Entra ID and Okta', () => {
  test('Entra ID: filter before create, POST, PATCH with "Replace" and "active": "False", then "True"', async () => {
    const body = rfcUser({ externalId: `entra-${Date.now()}`, active: true });
    const before = await scim().get('/scim/v2/Users').query({ filter: `userName eq "${body.userName}"` }).set(auth());
    expect(before.body).toMatchObject({ totalResults: 0, Resources: [] });
    const u = (await create(body)).body;
    const patch = await scim().patch(`/scim/v2/Users/${u.id}`).set(auth()).set('Content-Type', SCIM_JSON).send(JSON.stringify({
      schemas: [PATCH_OP],
      Operations: [
        { op: 'Replace', path: 'active', value: 'False' },
        { op: 'Add', path: `${ENTERPRISE}:department`, value: 'Unknown Dept' },
      ],
    }));
    expect(patch.status).toBe(200);
    expect(patch.body.active).toBe(false);
    expect((await ctx.db('users').where({ id: Number(u.id) }).first()).is_active).toBeFalsy();
    const found = await scim().get('/scim/v2/Users').query({ filter: `userName eq "${body.userName}"` }).set(auth());
    expect(found.body.Resources[0]).toMatchObject({ id: u.id, active: false });
    const back = await scim().patch(`/scim/v2/Users/${u.id}`).set(auth()).send({ schemas: [PATCH_OP], Operations: [{ op: 'Replace', value: { active: 'True', 'name.familyName': 'Smith' } }] });
    expect(back.status).toBe(200);
    expect(back.body).toMatchObject({ active: true, name: { familyName: 'Smith' } });
  });

  test('Okta: filter, POST, PUT of the whole user, PUT with active false', async () => {
    const body = rfcUser({ displayName: 'Okta Person', active: true });
    expect((await scim().get('/scim/v2/Users').query({ filter: `userName eq "${body.userName}"`, startIndex: 1, count: 100 }).set(auth())).body.totalResults).toBe(0);
    const u = (await create(body)).body;
    const put = await scim().put(`/scim/v2/Users/${u.id}`).set(auth()).send({ ...body, id: u.id, displayName: 'Okta Renamed', phoneNumbers: [{ value: '+8801900000000', type: 'mobile', primary: true }] });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ displayName: 'Okta Renamed', phoneNumbers: [{ value: '+8801900000000', type: 'mobile' }] });
    const off = await scim().put(`/scim/v2/Users/${u.id}`).set(auth()).send({ ...body, id: u.id, displayName: 'Okta Renamed', active: false });
    expect(off.body.active).toBe(false);
    expect((await ctx.db('users').where({ id: Number(u.id) }).first()).is_active).toBeFalsy();
  });
});

describe('SCIM isolation, the tree and the audit trail', () => {
  test("another organization's user is 404 and is not listed", async () => {
    const theirs = (await scim().post('/scim/v2/Users').set(scimAuth(other.secret)).send(rfcUser())).body;
    expect((await scim().get(`/scim/v2/Users/${theirs.id}`).set(auth())).status).toBe(404);
    expect((await scim().put(`/scim/v2/Users/${theirs.id}`).set(auth()).send(rfcUser())).status).toBe(404);
    expect((await scim().patch(`/scim/v2/Users/${theirs.id}`).set(auth()).send({ Operations: [{ op: 'replace', path: 'displayName', value: 'x' }] })).status).toBe(404);
    expect((await scim().delete(`/scim/v2/Users/${theirs.id}`).set(auth())).status).toBe(404);
    const listed = await scim().get('/scim/v2/Users').query({ filter: `userName eq "${theirs.userName}"` }).set(auth());
    expect(listed.body.totalResults).toBe(0);
  });

  test('manager.value sets the parent; a cycle and a manager of another organization are refused', async () => {
    const boss = (await create()).body;
    const worker = (await create(rfcUser({ [ENTERPRISE]: { employeeNumber: `W${Date.now()}${Math.random().toString(36).slice(2, 6)}`, manager: { value: boss.id } } }))).body;
    expect(worker[ENTERPRISE].manager.value).toBe(boss.id);
    expect(Number((await ctx.db('users').where({ id: Number(worker.id) }).first()).parent_id)).toBe(Number(boss.id));
    const cycle = await scim().patch(`/scim/v2/Users/${boss.id}`).set(auth()).send({ Operations: [{ op: 'add', path: `${ENTERPRISE}:manager`, value: worker.id }] });
    expect(cycle.body).toMatchObject({ status: '400', scimType: 'invalidValue' });
    const theirs = (await scim().post('/scim/v2/Users').set(scimAuth(other.secret)).send(rfcUser())).body;
    const cross = await scim().patch(`/scim/v2/Users/${worker.id}`).set(auth()).send({ Operations: [{ op: 'replace', path: `${ENTERPRISE}:manager`, value: { value: theirs.id } }] });
    expect(cross.status).toBe(400);
    const removed = await scim().patch(`/scim/v2/Users/${worker.id}`).set(auth()).send({ Operations: [{ op: 'remove', path: `${ENTERPRISE}:manager` }] });
    expect(removed.status).toBe(200);
    expect(removed.body[ENTERPRISE].manager).toBeUndefined();
  });

  test('changes are audited with the token as actor', async () => {
    const u = (await create()).body;
    await scim().patch(`/scim/v2/Users/${u.id}`).set(auth()).send({ Operations: [{ op: 'replace', path: 'displayName', value: 'Audited Name' }] }).expect(200);
    const rows = await ctx.db('audit_events').where({ target_type: 'contact', target_id: Number(u.id) }).orderBy('id');
    expect(rows.map((r) => r.action)).toEqual(['contact.provision', 'contact.update']);
    expect(rows.every((r) => r.actor_id === null && Number(r.actor_token_id) === org.tokenId && r.actor_role === 'Admin')).toBe(true);
  });
});

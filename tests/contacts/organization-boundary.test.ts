import request from 'supertest';
import { setupTestContext } from '../helpers/context';
import { bearer, createOrganization, createUnit, createUser, unique, type TestUser } from '../helpers/factory';
import { treeProblems } from '../helpers/tree';
import { csv, HEADER } from '../transfer/transfer-support';

/**
 * An Admin's writes stay in the own organization (docs/api.md, "Who may write what"): a
 * contact of another organization is 404 to a single write, 403 to a bulk one, a row error to
 * an import; a parent is always of the contact's organization; a Super_admin reaches every
 * organization; reading stays open to every signed-in user.
 */

const ctx = setupTestContext({ RATE_LIMIT_MAX: '1000000' });
const api = () => request(ctx.app);

interface Org {
  id: number;
  unitId: number;
  admin: TestUser;
  member: TestUser;
}

/**
 * A user of a custom role that deletes and bulk-changes contacts without reaching every
 * organization (the built-in Admin may neither delete nor bulk-change): the boundary holds for
 * every role without `organizations.manage`, not only for Admin.
 */
async function officer(organizationId: number, unitId: number): Promise<TestUser> {
  const name = unique('Desk').slice(0, 50);
  const permissions = ['contacts.read', 'contacts.update', 'contacts.move', 'contacts.delete', 'contacts.bulk'];
  const role = await api().post('/api/roles').set(bearer(superAdmin)).send({ name, permissions });
  expect(role.status).toBe(201);
  const user = await createUser(ctx, { organization_id: organizationId, unit_id: unitId });
  await ctx.db('users').where({ id: user.id }).update({ role_id: role.body.data.role.id });
  return { ...user, token: ctx.tokens.signAccess({ id: user.id, role_name: name, organization_id: organizationId, token_version: 0 }) };
}

async function organization(): Promise<Org> {
  const id = await createOrganization(ctx);
  const unitId = (await createUnit(ctx)).id;
  return {
    id,
    unitId,
    admin: await createUser(ctx, { role: 'Admin', organization_id: id, unit_id: unitId }),
    member: await createUser(ctx, { organization_id: id, unit_id: unitId }),
  };
}

const snapshotOf = (id: number) =>
  ctx.db('users').where({ id }).first('name', 'email', 'parent_id', 'role_id', 'is_active', 'password_hash', 'token_version', 'updated_at');

let a: Org;
let b: Org;
let superAdmin: TestUser;
beforeAll(async () => {
  a = await organization();
  b = await organization();
  superAdmin = await createUser(ctx, { role: 'Super_admin' });
});

describe("an Admin's single writes on another organization's contact answer 404 `Contact not found` and change nothing", () => {
  test.each([
    ['update', (id: number) => api().put(`/api/contacts/${id}`).send({ name: 'Taken Over' })],
    ['role change', (id: number) => api().put(`/api/contacts/${id}`).send({ role_id: 2 })],
    ['move to the top', (id: number) => api().put(`/api/contacts/${id}/move`).send({ parent_id: null })],
    ['password reset', (id: number) => api().put(`/api/contacts/${id}/password`).send({ newPassword: 'Taken1Over' })],
  ] as const)('%s', async (_what, send) => {
    const target = await createUser(ctx, { organization_id: a.id, unit_id: a.unitId });
    const before = await snapshotOf(target.id);
    const res = await send(target.id).set(bearer(b.admin));
    expect({ status: res.status, message: res.body.message }).toEqual({ status: 404, message: 'Contact not found' });
    expect(await snapshotOf(target.id)).toEqual(before);
  });

  test("the takeover of the issue: B's Admin cannot reset A's Admin's password, and cannot sign in as A's Admin", async () => {
    const res = await api().put(`/api/contacts/${a.admin.id}/password`).set(bearer(b.admin)).send({ newPassword: 'Taken1Over' });
    expect(res.status).toBe(404);
    const login = await api().post('/api/auth/login').send({ email: a.admin.email, password: 'Taken1Over' });
    expect(login.status).toBe(401);
    expect((await api().post('/api/auth/login').send({ email: a.admin.email, password: a.admin.password })).status).toBe(200);
  });

  test("delete, by a role that may delete but does not reach every organization", async () => {
    const target = await createUser(ctx, { organization_id: a.id, unit_id: a.unitId });
    const res = await api().delete(`/api/contacts/${target.id}`).set(bearer(await officer(b.id, b.unitId)));
    expect({ status: res.status, message: res.body.message }).toEqual({ status: 404, message: 'Contact not found' });
    expect(Boolean(Number((await snapshotOf(target.id))!.is_active))).toBe(true);
  });

  test('reading the other organization stays open: the same Admin gets the contact with 200', async () => {
    expect((await api().get(`/api/contacts/${a.member.id}`).set(bearer(b.admin))).status).toBe(200);
  });
});

describe('an Admin within the own organization', () => {
  test('updates, moves and resets the password of an own contact (the boundary is not a wall for the own side)', async () => {
    const target = await createUser(ctx, { organization_id: b.id, unit_id: b.unitId });
    expect((await api().put(`/api/contacts/${target.id}`).set(bearer(b.admin)).send({ name: 'Renamed Here' })).status).toBe(200);
    expect((await api().put(`/api/contacts/${target.id}/move`).set(bearer(b.admin)).send({ parent_id: b.member.id })).status).toBe(200);
    expect((await api().put(`/api/contacts/${target.id}/password`).set(bearer(b.admin)).send({ newPassword: 'Brand1New' })).status).toBe(200);
  });

  test("cannot hang an own contact under another organization's contact: 400 `Parent must belong to the same organization`", async () => {
    const unitId = (await createUnit(ctx)).id;
    const theirs = await createUser(ctx, { organization_id: a.id, unit_id: unitId });
    const mine = await createUser(ctx, { organization_id: b.id, unit_id: unitId });
    const res = await api().put(`/api/contacts/${mine.id}/move`).set(bearer(b.admin)).send({ parent_id: theirs.id });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('Parent must belong to the same organization');
    expect((await snapshotOf(mine.id))!.parent_id).toBeNull();
  });

  test("cannot create a contact under another organization's contact", async () => {
    const designation = await ctx.db('designations').orderBy('id').first('id');
    const res = await api()
      .post('/api/contacts')
      .set(bearer(b.admin))
      .send({ name: 'New Here', email: `${unique('new')}@example.test`, service_no: unique('SN').slice(0, 50), phone: '01700000000', unit_id: a.unitId, designation_id: designation.id, parent_id: a.member.id });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('Parent must belong to the same organization');
  });
});

describe("bulk writes (by a role that may make them) that name another organization's contact answer 403 and change nothing", () => {
  let desk: TestUser;
  beforeAll(async () => {
    desk = await officer(b.id, b.unitId);
  });

  test('bulk move', async () => {
    const mine = await createUser(ctx, { organization_id: b.id, unit_id: b.unitId });
    const theirs = await createUser(ctx, { organization_id: a.id, unit_id: a.unitId });
    const parent = await createUser(ctx, { organization_id: b.id, unit_id: a.unitId });
    const res = await api().post('/api/contacts/bulk-move').set(bearer(desk)).send({ contactIds: [mine.id, theirs.id], parent_id: parent.id });
    expect({ status: res.status, message: res.body.message }).toEqual({ status: 403, message: 'Contacts of another organization cannot be changed' });
    for (const id of [mine.id, theirs.id]) expect((await snapshotOf(id))!.parent_id).toBeNull();
  });

  test('bulk delete', async () => {
    const mine = await createUser(ctx, { organization_id: b.id, unit_id: b.unitId });
    const theirs = await createUser(ctx, { organization_id: a.id, unit_id: a.unitId });
    const res = await api().post('/api/contacts/bulk-delete').set(bearer(desk)).send({ contactIds: [mine.id, theirs.id] });
    expect({ status: res.status, message: res.body.message }).toEqual({ status: 403, message: 'Contacts of another organization cannot be changed' });
    for (const id of [mine.id, theirs.id]) expect(Boolean(Number((await snapshotOf(id))!.is_active))).toBe(true);
  });
});

describe('an import by an Admin', () => {
  const designationName = async () => String((await ctx.db('designations').orderBy('id').first('name')).name);
  const unitCode = async (unitId: number) => String((await ctx.db('units').where({ id: unitId }).first('code')).code);
  const upload = (caller: TestUser, text: string, query = '') =>
    api().post(`/api/contacts/import${query}`).set(bearer(caller)).attach('file', Buffer.from(text), { filename: 'contacts.csv', contentType: 'text/csv' });

  test("an upsert row naming another organization's contact is a row error, and nothing is written", async () => {
    const theirs = await createUser(ctx, { organization_id: a.id, unit_id: a.unitId });
    const before = await snapshotOf(theirs.id);
    const text = csv([HEADER, ['Taken Over', theirs.service_no, theirs.email, '01700000000', await unitCode(a.unitId), await designationName(), '']]);
    const res = await upload(b.admin, text, '?mode=upsert');
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([{ row: 2, field: 'service_no', message: 'This service number belongs to a contact of another organization' }]);
    expect(await snapshotOf(theirs.id)).toEqual(before);
  });

  test("a new row under another organization's contact is a row error", async () => {
    const tag = unique('ORG').slice(0, 40);
    const text = csv([HEADER, [`Person ${tag}`, tag, `${tag.toLowerCase()}@import.test`, '01700000000', await unitCode(a.unitId), await designationName(), a.member.service_no]]);
    const res = await upload(b.admin, text);
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([{ row: 2, field: 'parent_service_no', message: 'Parent must belong to the same organization' }]);
    expect(await ctx.db('users').where({ service_no: tag }).first('id')).toBeUndefined();
  });
});

describe('a Super_admin reaches every organization, but the tree never crosses one', () => {
  test("updates, moves and resets the password of another organization's contact", async () => {
    const target = await createUser(ctx, { organization_id: a.id, unit_id: a.unitId });
    expect((await api().put(`/api/contacts/${target.id}`).set(bearer(superAdmin)).send({ name: 'Changed By Super' })).status).toBe(200);
    expect((await api().put(`/api/contacts/${target.id}/move`).set(bearer(superAdmin)).send({ parent_id: a.member.id })).status).toBe(200);
    expect((await api().put(`/api/contacts/${target.id}/password`).set(bearer(superAdmin)).send({ newPassword: 'Brand1New' })).status).toBe(200);
    expect((await api().post('/api/contacts/bulk-move').set(bearer(superAdmin)).send({ contactIds: [target.id], parent_id: null })).status).toBe(200);
    expect((await api().post('/api/contacts/bulk-delete').set(bearer(superAdmin)).send({ contactIds: [target.id] })).status).toBe(200);
  });

  test('cannot put a contact under a parent of another organization either', async () => {
    const unitId = (await createUnit(ctx)).id;
    const theirs = await createUser(ctx, { organization_id: a.id, unit_id: unitId });
    const other = await createUser(ctx, { organization_id: b.id, unit_id: unitId });
    const res = await api().put(`/api/contacts/${other.id}/move`).set(bearer(superAdmin)).send({ parent_id: theirs.id });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('Parent must belong to the same organization');
    expect(await treeProblems(ctx.db)).toEqual([]);
  });
});

import request from 'supertest';
import { expectError, registerAs, registerBody, uniqueServiceNo } from '../auth/auth-support';
import { setupTestContext } from '../helpers/context';
import { bearer, createUnit, createUser, type TestUser } from '../helpers/factory';

/**
 * Rules of the specification and DECISIONS.md that no other test pinned to their exact status
 * and message, found by a survey of every refusal rule against the tests (131 rules, 11 not
 * pinned). Each test sends one request that the rule refuses and checks the whole error
 * envelope, and that nothing changed where a write was refused.
 */

// many requests from one address: the API limit must not answer in place of the rule under test
const ctx = setupTestContext({ RATE_LIMIT_MAX: '1000000' });
const api = () => request(ctx.app);

/** An id no row of the shared test database reaches. */
const MISSING_ID = 2_000_000_000;

/** The stored parent id of a contact, a number or null. */
async function parentOf(id: number): Promise<number | null> {
  const row = await ctx.db('users').where({ id }).first('parent_id');
  return row.parent_id === null ? null : Number(row.parent_id);
}

describe('POST /api/contacts/bulk-move with ids it cannot move (DECISIONS 5; docs/api.md, Contacts)', () => {
  let superAdmin: TestUser;
  beforeAll(async () => {
    superAdmin = await createUser(ctx, { role: 'Super_admin' });
  });

  /** A unit holding a root and a child of it: a real contact to send beside the ids that fail. */
  async function pair() {
    const unit = await createUnit(ctx);
    const root = await createUser(ctx, { unit_id: unit.id });
    const child = await createUser(ctx, { unit_id: unit.id, parent_id: root.id });
    return { unit, root, child };
  }

  test('unknown ids answer 400 `Contacts not found or inactive: <ids>` on contactIds, naming only those ids, and nothing moves', async () => {
    const { root, child } = await pair();
    const res = await api()
      .post('/api/contacts/bulk-move')
      .set(bearer(superAdmin))
      .send({ contactIds: [child.id, MISSING_ID, MISSING_ID + 1], parent_id: null });
    const message = `Contacts not found or inactive: ${MISSING_ID}, ${MISSING_ID + 1}`;
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ status: 'error', message, errors: [{ field: 'contactIds', message }] });
    expect(await parentOf(child.id)).toBe(root.id);
  });

  test('an inactive id answers the same message naming it, and the active contact beside it does not move', async () => {
    const { unit, root, child } = await pair();
    const gone = await createUser(ctx, { unit_id: unit.id, is_active: false });
    const res = await api().post('/api/contacts/bulk-move').set(bearer(superAdmin)).send({ contactIds: [child.id, gone.id], parent_id: null });
    const message = `Contacts not found or inactive: ${gone.id}`;
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ status: 'error', message, errors: [{ field: 'contactIds', message }] });
    expect(await parentOf(child.id)).toBe(root.id);
  });
});

describe('the security lists refuse callers without a valid access token (spec 5.1; DECISIONS 3)', () => {
  const PATHS = ['failed-logins', 'password-changes', 'recent-events'];

  test.each(PATHS)('GET /api/security/%s without a token answers 401 `Access token is required`', async (path) => {
    const res = await api().get(`/api/security/${path}`);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ status: 'error', message: 'Access token is required' });
  });

  test.each(PATHS)('GET /api/security/%s with a token that is not a JWT answers 401 `Invalid or expired token`', async (path) => {
    const res = await api().get(`/api/security/${path}`).set('Authorization', 'Bearer not.a.token');
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ status: 'error', message: 'Invalid or expired token' });
  });

  // a refresh token is never an access token, on this module's routes as on any other
  test.each(PATHS)('GET /api/security/%s with a refresh token answers 401 `Invalid or expired token`', async (path) => {
    const admin = await createUser(ctx, { role: 'Admin' });
    const res = await api().get(`/api/security/${path}`).set('Authorization', `Bearer ${admin.refreshToken}`);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ status: 'error', message: 'Invalid or expired token' });
  });
});

describe('GET /api/contacts with a parent_id filter (DECISIONS 5; docs/api.md, Contacts)', () => {
  test('a parent_id that names no contact answers 404 `Contact not found`', async () => {
    const reader = await createUser(ctx);
    const res = await api().get('/api/contacts').query({ parent_id: MISSING_ID }).set(bearer(reader));
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ status: 'error', message: 'Contact not found' });
  });
});

describe('duplicates held by a deactivated user still count (spec 4.1 rule 4; DECISIONS 4)', () => {
  // deletes are soft: the row keeps its e-mail and service number, and the unique keys with it

  test('register with the e-mail of a deactivated user answers 409 `User with this email already exists` and creates nothing', async () => {
    const superAdmin = await createUser(ctx, { role: 'Super_admin' });
    const gone = await createUser(ctx, { is_active: false });
    const body = registerBody({ email: gone.email });
    expectError(await registerAs(ctx, superAdmin, body), 409, 'User with this email already exists');
    expect(await ctx.db('users').where({ service_no: body.service_no }).first('id')).toBeUndefined();
  });

  test('profile update to the e-mail of a deactivated user answers 409 `Email is already in use by another user`', async () => {
    const user = await createUser(ctx);
    const gone = await createUser(ctx, { is_active: false });
    const res = await api().put('/api/auth/profile').set(bearer(user)).send({ email: gone.email });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ status: 'error', message: 'Email is already in use by another user' });
    expect((await ctx.db('users').where({ id: user.id }).first('email')).email).toBe(user.email);
  });

  test('profile update to the service number of a deactivated user answers 409 `Service number is already in use by another user`', async () => {
    const user = await createUser(ctx);
    const gone = await createUser(ctx, { is_active: false });
    // the profile takes at most 20 characters (spec 8): give the deactivated user a short one to collide with
    const taken = uniqueServiceNo(20);
    await ctx.db('users').where({ id: gone.id }).update({ service_no: taken });
    const res = await api().put('/api/auth/profile').set(bearer(user)).send({ service_no: taken });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ status: 'error', message: 'Service number is already in use by another user' });
    expect((await ctx.db('users').where({ id: user.id }).first('service_no')).service_no).toBe(user.service_no);
  });
});

describe('a unit change through PUT /api/auth/profile follows the contacts\' rule (DECISIONS 5; docs/api.md, Sign-in)', () => {
  /** Reads the unit_id and parent_id a user has now, to show that a refusal changed nothing. */
  const placeOf = async (id: number) => {
    const row = await ctx.db('users').where({ id }).first('unit_id', 'parent_id');
    return { unit_id: Number(row.unit_id), parent_id: row.parent_id === null ? null : Number(row.parent_id) };
  };

  test('is refused while the user has active children: 400 on unit_id, and nothing changes', async () => {
    const unit = await createUnit(ctx);
    const head = await createUser(ctx, { unit_id: unit.id });
    await createUser(ctx, { unit_id: unit.id, parent_id: head.id });
    const other = await createUnit(ctx);
    const res = await api().put('/api/auth/profile').set(bearer(head)).send({ unit_id: other.id });
    const message = 'Cannot change the unit of a contact that has active children';
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ status: 'error', message, errors: [{ field: 'unit_id', message }] });
    expect(await placeOf(head.id)).toEqual({ unit_id: unit.id, parent_id: null });
  });

  test('is refused while the user stays under a parent in the old unit: 400 on unit_id, and nothing changes', async () => {
    const unit = await createUnit(ctx);
    const head = await createUser(ctx, { unit_id: unit.id });
    const member = await createUser(ctx, { unit_id: unit.id, parent_id: head.id });
    const other = await createUnit(ctx);
    const res = await api().put('/api/auth/profile').set(bearer(member)).send({ unit_id: other.id });
    const message = 'Cannot change the unit of a contact whose parent is in the old unit; give a parent_id in the new unit, or null';
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ status: 'error', message, errors: [{ field: 'unit_id', message }] });
    expect(await placeOf(member.id)).toEqual({ unit_id: unit.id, parent_id: head.id });
  });
});

describe('privilege ceiling of an Admin on update (DECISIONS 2)', () => {
  // the create test sends role_id 1 both as a number and as digits; the update test only as a number
  test('PUT /api/contacts/:id with role_id "1" (digits as text) answers 403 `Insufficient permissions` and keeps the role', async () => {
    const unit = await createUnit(ctx);
    const admin = await createUser(ctx, { role: 'Admin', unit_id: unit.id });
    const target = await createUser(ctx, { unit_id: unit.id });
    const res = await api().put(`/api/contacts/${target.id}`).set(bearer(admin)).send({ role_id: '1' });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ status: 'error', message: 'Insufficient permissions' });
    expect(Number((await ctx.db('users').where({ id: target.id }).first('role_id')).role_id)).toBe(3);
  });
});

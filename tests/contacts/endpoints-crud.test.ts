import { setupTestContext } from '../helpers/context';
import { bearer, createDepartment, createUnit, createUser, unique } from '../helpers/factory';
import { treeProblems } from '../helpers/tree';
import { ISO_MS, contactsFixture } from './contacts-support';

/** Get, update and delete of /api/contacts (spec 2.4, 4.2 #2, #4, #5; DECISIONS 1, 3, 5). */

const ctx = setupTestContext({ RATE_LIMIT_MAX: '1000000' });
const fx = contactsFixture(ctx, { admin: 'Super_admin', references: true });
const { api, contactBody, create, createOk, update, get, remove, row, login } = fx;

describe('GET /api/contacts/:id', () => {
  test('answers 200 `Contact retrieved successfully` with the contact', async () => {
    const unit = await createUnit(ctx);
    const parent = await createOk(contactBody(unit.id));
    const created = await createOk(contactBody(unit.id, { parent_id: parent.id }));
    const user = await createUser(ctx, { unit_id: unit.id });
    const res = await get(created.id, user);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'success', message: 'Contact retrieved successfully', data: { contact: created } });
    expect(res.body.data.contact.parent_name).toBe(parent.name);
  });

  test('answers 404 `Contact not found` for an unknown id', async () => {
    const res = await get(2_000_000_000);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ status: 'error', message: 'Contact not found' });
  });
});

describe('PUT /api/contacts/:id', () => {
  test('answers 200 `Contact updated successfully`; a partial update leaves the other fields as they were', async () => {
    const unit = await createUnit(ctx);
    const department = await createDepartment(ctx, unit.id);
    const created = await createOk(
      contactBody(unit.id, { mobile: '0181', alternative_mobile: '0191', rank_id: fx.rank.id, department_id: department.id, avatar: 'https://e.test/a.png' }),
    );
    const res = await update(created.id, { phone: '0999', status: 'online' });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('success');
    expect(res.body.message).toBe('Contact updated successfully');
    const c = res.body.data.contact;
    expect(c).toEqual({ ...created, phone: '0999', status: 'online', updated_at: expect.stringMatching(ISO_MS) });
    expect(Date.parse(c.updated_at)).toBeGreaterThanOrEqual(Date.parse(created.updated_at as string));
    expect((await get(created.id)).body.data.contact).toEqual(c);
  });

  test('changes every field it accepts', async () => {
    const unit = await createUnit(ctx);
    const department = await createDepartment(ctx, unit.id);
    const parent = await createOk(contactBody(unit.id));
    const created = await createOk(contactBody(unit.id));
    const changes = {
      ...contactBody(unit.id),
      rank_id: fx.rank.id,
      department_id: department.id,
      mobile: '0182',
      alternative_mobile: '0192',
      parent_id: parent.id,
      role_id: 2,
      status: 'busy',
      avatar: 'http://e.test/b.png',
    };
    const res = await update(created.id, changes);
    expect(res.status).toBe(200);
    expect(res.body.data.contact).toMatchObject({
      ...changes,
      id: created.id,
      department_name: department.name,
      rank_name: fx.rank.name,
      parent_name: parent.name,
      role_name: 'Admin',
    });
    expect(await treeProblems(ctx.db)).toEqual([]);
  });

  test('clears the nullable fields with null', async () => {
    const unit = await createUnit(ctx);
    const department = await createDepartment(ctx, unit.id);
    const created = await createOk(
      contactBody(unit.id, { mobile: '0181', alternative_mobile: '0191', rank_id: fx.rank.id, department_id: department.id, avatar: 'https://e.test/a.png' }),
    );
    const res = await update(created.id, { mobile: null, alternative_mobile: null, rank_id: null, department_id: null, avatar: null });
    expect(res.status).toBe(200);
    expect(res.body.data.contact).toMatchObject({
      mobile: null,
      alternative_mobile: null,
      rank_id: null,
      rank_name: null,
      department_id: null,
      department_name: null,
      avatar: null,
    });
  });

  test('ignores fields the endpoint does not accept (is_active, password_hash, organization_id, password, token_version)', async () => {
    const unit = await createUnit(ctx);
    const target = await createUser(ctx, { unit_id: unit.id });
    const before = await row(target.id);
    const res = await update(target.id, {
      is_active: false,
      password_hash: 'forged',
      organization_id: 999,
      password: 'Sneaky1Pass',
      token_version: 42,
      tree_ord: 1,
      depth: 5,
      created_at: '2000-01-01T00:00:00.000Z',
    });
    expect(res.status).toBe(200);
    const after = await row(target.id);
    expect({ ...after, updated_at: null }).toEqual({ ...before, updated_at: null });
    // the old password still works, the sent one does not; the old token still works
    expect((await login(target.email, target.password)).status).toBe(200);
    expect((await login(target.email, 'Sneaky1Pass')).status).toBe(401);
    expect((await get(target.id, target)).status).toBe(200);
  });

  test.each([
    ['service number', 'service_no'],
    ['e-mail', 'email'],
  ] as const)('taking another contact\'s %s answers 400 `Service number or email already exists` and changes nothing', async (_what, field) => {
    const unit = await createUnit(ctx);
    const taken = await createUser(ctx, { unit_id: unit.id });
    const target = await createUser(ctx, { unit_id: unit.id });
    const before = await row(target.id);
    const res = await update(target.id, { [field]: taken[field] });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ status: 'error', message: 'Service number or email already exists' });
    expect(await row(target.id)).toEqual(before);
  });

  test('of two contacts racing for one new e-mail, exactly one gets it', async () => {
    const unit = await createUnit(ctx);
    const a = await createUser(ctx, { unit_id: unit.id });
    const b = await createUser(ctx, { unit_id: unit.id });
    const email = `${unique('race')}@example.test`.toLowerCase();
    const responses = await Promise.all([update(a.id, { email }), update(b.id, { email })]);
    expect(responses.map((r) => r.status).sort()).toEqual([200, 400]);
    expect(await ctx.db('users').where({ email })).toHaveLength(1);
  });

  test('keeping its own service number and e-mail is not a duplicate', async () => {
    const unit = await createUnit(ctx);
    const target = await createUser(ctx, { unit_id: unit.id });
    const res = await update(target.id, { service_no: target.service_no, email: target.email.toUpperCase() });
    expect(res.status).toBe(200);
    expect(res.body.data.contact).toMatchObject({ service_no: target.service_no, email: target.email });
  });

  test('answers 404 `Contact not found` for an unknown or deleted contact', async () => {
    const unit = await createUnit(ctx);
    const gone = await createUser(ctx, { unit_id: unit.id, is_active: false });
    for (const id of [2_000_000_000, gone.id]) {
      const res = await update(id, { phone: '0999' });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ status: 'error', message: 'Contact not found' });
    }
    expect((await row(gone.id)).phone).not.toBe('0999');
  });

  test('a role change makes the contact\'s earlier tokens fail with 401', async () => {
    const unit = await createUnit(ctx);
    const target = await createUser(ctx, { unit_id: unit.id });
    expect((await get(target.id, target)).status).toBe(200);
    const res = await update(target.id, { role_id: 2 });
    expect(res.status).toBe(200);
    const after = await get(target.id, target);
    expect(after.status).toBe(401);
    expect(after.body).toEqual({ status: 'error', message: 'Invalid or expired token' });
    // a fresh sign-in carries the new role
    const signed = await login(target.email, target.password);
    expect(signed.status).toBe(200);
    expect(signed.body.data.user.role).toBe('Admin');
  });

  test('an update that keeps the role keeps the contact\'s tokens valid', async () => {
    const unit = await createUnit(ctx);
    const target = await createUser(ctx, { unit_id: unit.id });
    expect((await update(target.id, { role_id: 3, phone: '0123' })).status).toBe(200);
    expect((await get(target.id, target)).status).toBe(200);
  });
});

describe('DELETE /api/contacts/:id', () => {
  test('answers 200 `Contact deleted successfully` and makes the contact inactive; get still returns it', async () => {
    const unit = await createUnit(ctx);
    const target = await createUser(ctx, { unit_id: unit.id });
    const res = await remove(target.id);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'success', message: 'Contact deleted successfully', data: {} });
    const got = await get(target.id);
    expect(got.status).toBe(200);
    expect(got.body.data.contact).toMatchObject({ id: target.id, is_active: false });
    expect(Boolean(Number((await row(target.id)).is_active))).toBe(false);
  });

  test('answers 404 `Contact not found` for an unknown id', async () => {
    const res = await remove(2_000_000_000);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ status: 'error', message: 'Contact not found' });
  });

  test('answers 404 for a contact already deleted', async () => {
    const unit = await createUnit(ctx);
    const target = await createUser(ctx, { unit_id: unit.id });
    expect((await remove(target.id)).status).toBe(200);
    expect((await remove(target.id)).status).toBe(404);
  });

  test('the deleted contact\'s children become roots; its grandchildren stay where they are', async () => {
    const unit = await createUnit(ctx);
    const top = await createUser(ctx, { unit_id: unit.id });
    const middle = await createUser(ctx, { unit_id: unit.id, parent_id: top.id });
    const a = await createUser(ctx, { unit_id: unit.id, parent_id: middle.id });
    const b = await createUser(ctx, { unit_id: unit.id, parent_id: middle.id });
    const grandchild = await createUser(ctx, { unit_id: unit.id, parent_id: a.id });
    expect((await remove(middle.id)).status).toBe(200);
    expect((await get(a.id)).body.data.contact).toMatchObject({ parent_id: null, parent_name: null, is_active: true });
    expect((await get(b.id)).body.data.contact).toMatchObject({ parent_id: null, is_active: true });
    expect((await get(grandchild.id)).body.data.contact).toMatchObject({ parent_id: a.id });
    expect(Number((await row(middle.id)).parent_id)).toBe(top.id);
    const children = await api().get(`/api/contacts/${top.id}/children`).set(bearer(fx.admin));
    expect(children.body.data.total).toBe(0);
    expect(await treeProblems(ctx.db)).toEqual([]);
  });

  test('the deleted contact\'s earlier tokens fail with 401 and it cannot sign in', async () => {
    const unit = await createUnit(ctx);
    const target = await createUser(ctx, { unit_id: unit.id });
    expect((await remove(target.id)).status).toBe(200);
    expect((await get(target.id, target)).status).toBe(401);
    const signed = await login(target.email, target.password);
    expect(signed.status).toBe(401);
    expect(signed.body.message).toBe('Invalid credentials');
  });

  test('a deleted contact is no longer in the unit listing, nor in the unit tree of a later write', async () => {
    const unit = await createUnit(ctx);
    const target = await createUser(ctx, { unit_id: unit.id });
    expect((await remove(target.id)).status).toBe(200);
    const list = await api().get('/api/contacts').query({ unit_id: unit.id, format: 'flat' }).set(bearer(fx.admin));
    expect(list.body.data.contacts.map((c: { id: number }) => c.id)).toEqual([]);
    const created = await create(contactBody(unit.id));
    expect(created.body.data.tree.map((n: { id: number }) => n.id)).toEqual([created.body.data.contact.id]);
  });
});

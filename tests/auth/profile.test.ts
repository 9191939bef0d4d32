import request from 'supertest';
import { setupTestContext } from '../helpers/context';
import { bearer, createDepartment, createOrganization, createUnit, createUser, unique, type TestUser } from '../helpers/factory';
import { expectError, failingFields, ISO_MS, login, messageFor, uniqueEmail, uniqueServiceNo, userRow } from './auth-support';

describe('GET /api/auth/profile', () => {
  const ctx = setupTestContext();

  test('answers 200 with the profile shape: spec 2.2 without created_at', async () => {
    const admin = await createUser(ctx, { role: 'Super_admin' });
    const body = {
      name: `Profile ${unique()}`,
      email: uniqueEmail('prof'),
      password: 'Pr0filePass',
      service_no: uniqueServiceNo(),
      unit: 'ICT',
      designation: 'Network Engineer',
      rank: 'Sergeant',
      branch: 'Cyber',
    };
    const registered = await request(ctx.app).post('/api/auth/register').set(bearer(admin)).send(body);
    expect(registered.status).toBe(201);
    const signIn = await login(ctx, { email: body.email, password: body.password });

    const res = await request(ctx.app).get('/api/auth/profile').set(bearer(signIn.body.data));
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('success');
    expect(typeof res.body.message).toBe('string');
    expect(Object.keys(res.body.data)).toEqual(['user']);
    const u = res.body.data.user;
    expect(Object.keys(u).sort()).toEqual(
      ['branch', 'email', 'id', 'last_seen', 'name', 'rank', 'role', 'service_no', 'status', 'unit'].sort(),
    );
    expect(u).toEqual({
      id: registered.body.data.user.id,
      name: body.name,
      email: body.email,
      role: 'User',
      rank: 'Sergeant',
      service_no: body.service_no,
      unit: 'ICT Directorate',
      branch: 'Cyber',
      status: 'online',
      last_seen: signIn.body.data.user.last_seen,
    });
    expect(u.last_seen).toMatch(ISO_MS);
    expect(u).not.toHaveProperty('created_at');
    expect(u).not.toHaveProperty('password_hash');
  });

  test('shows a user who never signed in as offline with last_seen null', async () => {
    const user = await createUser(ctx);
    const res = await request(ctx.app).get('/api/auth/profile').set(bearer(user));
    expect(res.status).toBe(200);
    expect(res.body.data.user).toMatchObject({ id: user.id, status: 'offline', last_seen: null });
  });

  test('shows the caller, not anyone else', async () => {
    const first = await createUser(ctx);
    const second = await createUser(ctx);
    const res = await request(ctx.app).get('/api/auth/profile').set(bearer(second));
    expect(res.body.data.user.id).toBe(second.id);
    expect(res.body.data.user.email).toBe(second.email);
    expect(res.body.data.user.id).not.toBe(first.id);
  });

  test('requires a token', async () => {
    expectError(await request(ctx.app).get('/api/auth/profile'), 401, 'Access token is required');
  });
});

describe('PUT /api/auth/profile', () => {
  const ctx = setupTestContext();
  const update = (user: { token: string }, body: unknown) =>
    request(ctx.app).put('/api/auth/profile').set(bearer(user)).send(body as object);

  const rankId = async (name: string) => Number((await ctx.db('ranks').where({ name }).first('id')).id);
  const designationId = async (name: string) => Number((await ctx.db('designations').where({ name }).first('id')).id);

  describe('success', () => {
    test('answers 200 `Profile updated successfully` with the profile of spec 2.3', async () => {
      const user = await createUser(ctx);
      const unit = await createUnit(ctx);
      const department = await createDepartment(ctx, unit.id);
      const unitCode = String((await ctx.db('units').where({ id: unit.id }).first('code')).code);
      const changes = {
        name: `Updated ${unique()}`,
        email: uniqueEmail('upd'),
        service_no: uniqueServiceNo(20),
        phone: '+8801711000000',
        mobile: '01811000000',
        alternative_mobile: '01911000000',
        rank_id: await rankId('Major'),
        unit_id: unit.id,
        department_id: department.id,
        designation_id: await designationId('Instructor'),
        avatar: 'https://example.com/avatars/me.png',
      };
      const res = await update(user, changes);

      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ status: 'success', message: 'Profile updated successfully' });
      expect(Object.keys(res.body.data)).toEqual(['user']);
      const u = res.body.data.user;
      expect(Object.keys(u).sort()).toEqual(
        [
          'id', 'name', 'email', 'service_no', 'phone', 'mobile', 'alternative_mobile',
          'rank_id', 'unit_id', 'department_id', 'designation_id',
          'rank_name', 'unit_name', 'unit_code', 'department_name', 'designation_name',
          'avatar', 'role_id', 'role_name', 'permissions',
        ].sort(),
      );
      expect(u).toEqual({
        id: user.id,
        ...changes,
        rank_name: 'Major',
        unit_name: unit.name,
        unit_code: unitCode,
        department_name: department.name,
        designation_name: 'Instructor',
        role_id: 3,
        role_name: 'User',
        permissions: expect.any(Array),
      });
      for (const key of ['id', 'rank_id', 'unit_id', 'department_id', 'designation_id', 'role_id']) {
        expect(Number.isInteger(u[key])).toBe(true);
      }
      expect(u.permissions).toEqual(['contacts.read']);
    });

    test('lists the permission names of the caller role', async () => {
      const admin = await createUser(ctx, { role: 'Admin' });
      const res = await update(admin, { name: `Admin ${unique()}` });
      expect(res.status).toBe(200);
      expect(res.body.data.user).toMatchObject({ role_id: 2, role_name: 'Admin' });
      const permissions: unknown[] = res.body.data.user.permissions;
      expect(permissions.every((p) => typeof p === 'string')).toBe(true);
      expect(permissions).toEqual(expect.arrayContaining(['contacts.read', 'contacts.create', 'users.register']));
      expect(permissions).not.toContain('contacts.delete');
      expect(permissions).not.toContain('organizations.manage');
    });

    test('stores the changes in the database', async () => {
      const user = await createUser(ctx);
      const email = uniqueEmail('stored');
      const serviceNo = uniqueServiceNo(20);
      const res = await update(user, { name: 'Stored Name', email, service_no: serviceNo, phone: '123' });
      expect(res.status).toBe(200);
      expect(await userRow(ctx, user.id)).toMatchObject({ name: 'Stored Name', email, service_no: serviceNo, phone: '123' });
    });

    test('stores a new e-mail in lower case and signs in with it', async () => {
      const user = await createUser(ctx);
      const email = uniqueEmail('lower');
      const res = await update(user, { email: email.toUpperCase() });
      expect(res.status).toBe(200);
      expect(res.body.data.user.email).toBe(email);
      expect((await login(ctx, { email, password: user.password })).status).toBe(200);
    });

    test('changes only the fields given', async () => {
      const user = await createUser(ctx);
      const before = await userRow(ctx, user.id);
      const res = await update(user, { mobile: '0123' });
      expect(res.status).toBe(200);
      const after = await userRow(ctx, user.id);
      for (const key of ['name', 'email', 'service_no', 'phone', 'unit_id', 'department_id', 'designation_id', 'rank_id']) {
        expect(after[key]).toEqual(before[key]);
      }
      expect(after.mobile).toBe('0123');
    });

    test('accepts an empty body and changes nothing', async () => {
      const user = await createUser(ctx);
      const before = await userRow(ctx, user.id);
      const res = await update(user, {});
      expect(res.status).toBe(200);
      const after = await userRow(ctx, user.id);
      expect({ ...after, updated_at: null }).toEqual({ ...before, updated_at: null });
    });

    test('keeps the caller e-mail and service number when given unchanged', async () => {
      const user = await createUser(ctx);
      const serviceNo = uniqueServiceNo(20);
      await ctx.db('users').where({ id: user.id }).update({ service_no: serviceNo });
      const res = await update(user, { email: user.email.toUpperCase(), service_no: serviceNo });
      expect(res.status).toBe(200);
      expect(res.body.data.user).toMatchObject({ email: user.email, service_no: serviceNo });
    });

    test('clears nullable fields given null', async () => {
      const user = await createUser(ctx);
      const department = await createDepartment(ctx, user.unit_id);
      expect((await update(user, { mobile: '0999', department_id: department.id, rank_id: await rankId('Corporal') })).status).toBe(200);
      const res = await update(user, { mobile: null, alternative_mobile: null, department_id: null, rank_id: null, avatar: null });
      expect(res.status).toBe(200);
      expect(res.body.data.user).toMatchObject({ mobile: null, department_id: null, department_name: null, rank_id: null, rank_name: null });
    });

    test('moves the user into another unit with a department of that unit', async () => {
      const user = await createUser(ctx);
      const unit = await createUnit(ctx);
      const department = await createDepartment(ctx, unit.id);
      const res = await update(user, { unit_id: unit.id, department_id: department.id });
      expect(res.status).toBe(200);
      expect(res.body.data.user).toMatchObject({ unit_id: unit.id, unit_name: unit.name, department_id: department.id });
      expect(await userRow(ctx, user.id)).toMatchObject({ unit_id: unit.id, department_id: department.id });
    });

    test('accepts integer fields given as digit strings', async () => {
      const user = await createUser(ctx);
      const department = await createDepartment(ctx, user.unit_id);
      const res = await update(user, { department_id: String(department.id) });
      expect(res.status).toBe(200);
      expect(res.body.data.user.department_id).toBe(department.id);
    });
  });

  describe('fields that profile update does not take', () => {
    test('ignores role_id, is_active, password_hash and organization_id, and changes the rest', async () => {
      const organizationId = await createOrganization(ctx);
      const user = await createUser(ctx, { organization_id: organizationId });
      const before = await userRow(ctx, user.id);
      const res = await update(user, {
        name: 'Still A User',
        role_id: 1,
        is_active: false,
        password_hash: '$2b$04$abcdefghijklmnopqrstuuJm8P9ZCxX0Cv2rV9ZCxX0Cv2rV9ZCxX',
        organization_id: 1,
        token_version: 7,
        status: 'busy',
        parent_id: user.id,
      });
      expect(res.status).toBe(200);
      expect(res.body.data.user).toMatchObject({ name: 'Still A User', role_id: 3, role_name: 'User' });
      const after = await userRow(ctx, user.id);
      expect(after.name).toBe('Still A User');
      for (const key of ['role_id', 'is_active', 'password_hash', 'organization_id', 'token_version', 'status', 'parent_id']) {
        expect({ [key]: after[key] }).toEqual({ [key]: before[key] });
      }
      // the old password and token still work
      expect((await login(ctx, { email: user.email, password: user.password })).status).toBe(200);
      expect((await request(ctx.app).get('/api/auth/profile').set(bearer(user))).status).toBe(200);
    });

    test('changes nothing when only fields it does not take are given', async () => {
      const user = await createUser(ctx);
      const before = await userRow(ctx, user.id);
      const res = await update(user, { role_id: 1, is_active: 0, organization_id: 2 });
      expect(res.status).toBe(200);
      const after = await userRow(ctx, user.id);
      expect({ ...after, updated_at: null }).toEqual({ ...before, updated_at: null });
    });
  });

  describe('conflicts and references', () => {
    test('refuses an e-mail of another user with 409 `Email is already in use by another user`', async () => {
      const user = await createUser(ctx);
      const other = await createUser(ctx);
      expectError(await update(user, { email: other.email }), 409, 'Email is already in use by another user');
      expectError(await update(user, { email: other.email.toUpperCase() }), 409, 'Email is already in use by another user');
      expect((await userRow(ctx, user.id)).email).toBe(user.email);
    });

    test('refuses a service number of another user with 409 `Service number is already in use by another user`', async () => {
      const user = await createUser(ctx);
      const other = await createUser(ctx);
      const taken = uniqueServiceNo(20);
      await ctx.db('users').where({ id: other.id }).update({ service_no: taken });
      expectError(await update(user, { service_no: taken }), 409, 'Service number is already in use by another user');
      expect((await userRow(ctx, user.id)).service_no).toBe(user.service_no);
    });

    test('refuses a department of another unit with 400 `Department does not belong to the unit`', async () => {
      const user = await createUser(ctx);
      const otherUnit = await createUnit(ctx);
      const department = await createDepartment(ctx, otherUnit.id);
      const res = await update(user, { department_id: department.id });
      expectError(res, 400, 'Department does not belong to the unit');
      expect(res.body.errors).toEqual([{ field: 'department_id', message: 'Department does not belong to the unit' }]);
      expect((await userRow(ctx, user.id)).department_id).toBeNull();
    });

    test('refuses a department of the old unit when the same request changes the unit', async () => {
      const user = await createUser(ctx);
      const oldDepartment = await createDepartment(ctx, user.unit_id);
      const newUnit = await createUnit(ctx);
      const res = await update(user, { unit_id: newUnit.id, department_id: oldDepartment.id });
      expectError(res, 400, 'Department does not belong to the unit');
      expect(Number((await userRow(ctx, user.id)).unit_id)).toBe(user.unit_id);
    });

    test('refuses a unit change that would leave the current department in the old unit', async () => {
      const user = await createUser(ctx);
      const department = await createDepartment(ctx, user.unit_id);
      expect((await update(user, { department_id: department.id })).status).toBe(200);
      const newUnit = await createUnit(ctx);
      expectError(await update(user, { unit_id: newUnit.id }), 400, 'Department does not belong to the unit');
      // clearing the department in the same request is allowed
      expect((await update(user, { unit_id: newUnit.id, department_id: null })).status).toBe(200);
    });

    test('refuses unknown unit, department, rank and designation ids on each field', async () => {
      const user = await createUser(ctx);
      const missing = 2_000_000_000;
      const res = await update(user, { unit_id: missing, department_id: missing, rank_id: missing, designation_id: missing });
      expect(failingFields(res)).toEqual(['department_id', 'designation_id', 'rank_id', 'unit_id']);
      expect(messageFor(res, 'unit_id')).toBe('Unknown unit');
    });
  });

  test('requires a token', async () => {
    expectError(await request(ctx.app).put('/api/auth/profile').send({ name: 'No Token' }), 401, 'Access token is required');
  });

  test('lets every role update its own profile', async () => {
    for (const role of ['Super_admin', 'Admin', 'User'] as const) {
      const user: TestUser = await createUser(ctx, { role });
      expect((await update(user, { phone: '555' })).status).toBe(200);
    }
  });
});

import bcrypt from 'bcrypt';
import request from 'supertest';
import { setupTestContext } from '../helpers/context';
import { bearer, createOrganization, createUser, unique } from '../helpers/factory';
import { expectError, failingFields, ISO_MS, login, messageFor, registrationFixture, registerBody, uniqueEmail, userRow } from './auth-support';

describe('POST /api/auth/register', () => {
  const ctx = setupTestContext();
  const registration = registrationFixture(ctx);
  const { register } = registration;
  const minimal = registerBody;

  describe('success', () => {
    test('answers 201 `User registered successfully` with the register shape', async () => {
      const body = minimal({ rank: 'Captain', branch: 'Signals', phone: '01711111111' });
      const res = await register(registration.superAdmin, body);

      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ status: 'success', message: 'User registered successfully' });
      expect(Object.keys(res.body.data)).toEqual(['user']);
      const u = res.body.data.user;
      expect(Object.keys(u).sort()).toEqual(
        ['branch', 'created_at', 'email', 'id', 'is_active', 'name', 'rank', 'role', 'service_no', 'unit'].sort(),
      );
      expect(u).toEqual({
        id: expect.any(Number),
        name: body.name,
        email: body.email,
        role: 'User',
        rank: 'Captain',
        service_no: body.service_no,
        unit: 'Headquarters',
        branch: 'Signals',
        is_active: 1,
        created_at: expect.stringMatching(ISO_MS),
      });
      expect(Number.isInteger(u.id)).toBe(true);
      expect(Math.abs(Date.parse(u.created_at) - Date.now())).toBeLessThan(60_000);
      expect(u).not.toHaveProperty('password');
      expect(u).not.toHaveProperty('password_hash');
    });

    test('stores the user with a bcrypt hash of the password, never the password itself', async () => {
      const body = minimal();
      const res = await register(registration.superAdmin, body);
      const row = await userRow(ctx, res.body.data.user.id);
      expect(row.password_hash).not.toBe(body.password);
      expect(String(row.password_hash)).toMatch(/^\$2b\$04\$/);
      expect(await bcrypt.compare(body.password, String(row.password_hash))).toBe(true);
      expect(Boolean(Number(row.is_active))).toBe(true);
    });

    test('lets the registered user sign in with the given password', async () => {
      const body = minimal();
      const res = await register(registration.superAdmin, body);
      const signIn = await login(ctx, { email: body.email, password: body.password });
      expect(signIn.status).toBe(200);
      expect(signIn.body.data.user.id).toBe(res.body.data.user.id);
    });

    test('stores the e-mail in lower case', async () => {
      const email = uniqueEmail('MiXeD').replace('mixed', 'MiXeD');
      const res = await register(registration.superAdmin, minimal({ email }));
      expect(res.status).toBe(201);
      expect(res.body.data.user.email).toBe(email.toLowerCase());
      expect((await userRow(ctx, res.body.data.user.id)).email).toBe(email.toLowerCase());
    });

    test('gives the role `User` when no role is named', async () => {
      const res = await register(registration.superAdmin, minimal());
      expect(res.body.data.user.role).toBe('User');
      expect(Number((await userRow(ctx, res.body.data.user.id)).role_id)).toBe(3);
    });

    test('answers null rank and branch when none is given', async () => {
      const res = await register(registration.superAdmin, minimal());
      expect(res.status).toBe(201);
      expect(res.body.data.user.rank).toBeNull();
      expect(res.body.data.user.branch).toBeNull();
    });

    test('stores the optional text fields', async () => {
      const body = minimal({
        branch: 'Branch A',
        sub_branch: 'Sub B',
        phone: '+880 1711-000000',
        mobile: '01811111111',
        alternative_mobile: '01911111111',
      });
      const res = await register(registration.superAdmin, body);
      expect(res.status).toBe(201);
      expect(await userRow(ctx, res.body.data.user.id)).toMatchObject({
        branch: 'Branch A',
        sub_branch: 'Sub B',
        phone: '+880 1711-000000',
        mobile: '01811111111',
        alternative_mobile: '01911111111',
      });
    });
  });

  describe('who may register whom', () => {
    test('refuses a User with 403 `Insufficient permissions` and creates nothing', async () => {
      const user = await createUser(ctx, { role: 'User' });
      const body = minimal();
      expectError(await register(user, body), 403, 'Insufficient permissions');
      expect(await ctx.db('users').where({ email: body.email }).first('id')).toBeUndefined();
    });

    test('refuses an Admin registering a Super_admin with 403 and creates nothing', async () => {
      const admin = await createUser(ctx, { role: 'Admin' });
      const body = minimal({ role: 'Super_admin' });
      expectError(await register(admin, body), 403, 'Insufficient permissions');
      expect(await ctx.db('users').where({ email: body.email }).first('id')).toBeUndefined();
    });

    test('refuses an Admin registering a super_admin spelled in another case', async () => {
      const admin = await createUser(ctx, { role: 'Admin' });
      expectError(await register(admin, minimal({ role: 'SUPER_ADMIN' })), 403, 'Insufficient permissions');
    });

    test.each(['Admin', 'User'])('lets an Admin register an %s', async (role) => {
      const admin = await createUser(ctx, { role: 'Admin' });
      const res = await register(admin, minimal({ role }));
      expect(res.status).toBe(201);
      expect(res.body.data.user.role).toBe(role);
    });

    test('lets a Super_admin register a Super_admin', async () => {
      const res = await register(registration.superAdmin, minimal({ role: 'Super_admin' }));
      expect(res.status).toBe(201);
      expect(res.body.data.user.role).toBe('Super_admin');
    });

    test('checks the role before validating the body of a User', async () => {
      const user = await createUser(ctx, { role: 'User' });
      expectError(await register(user, {}), 403, 'Insufficient permissions');
    });
  });

  describe('organization', () => {
    test('puts the new user into the registering user organization by default', async () => {
      const organizationId = await createOrganization(ctx);
      const admin = await createUser(ctx, { role: 'Admin', organization_id: organizationId });
      const res = await register(admin, minimal());
      expect(res.status).toBe(201);
      expect(Number((await userRow(ctx, res.body.data.user.id)).organization_id)).toBe(organizationId);
    });

    test('lets a Super_admin place the new user into another organization', async () => {
      const created = await request(ctx.app)
        .post('/api/organizations')
        .set(bearer(registration.superAdmin))
        .send({ name: unique('Org '), code: unique('OC').slice(0, 20) });
      expect(created.status).toBe(201);
      const organizationId = Number(created.body.data.organization.id);

      const res = await register(registration.superAdmin, minimal({ organization_id: organizationId }));
      expect(res.status).toBe(201);
      expect(Number((await userRow(ctx, res.body.data.user.id)).organization_id)).toBe(organizationId);
    });

    test('ignores the organization_id of an Admin: the user joins the Admin organization', async () => {
      const adminOrganization = await createOrganization(ctx);
      const otherOrganization = await createOrganization(ctx);
      const admin = await createUser(ctx, { role: 'Admin', organization_id: adminOrganization });
      const res = await register(admin, minimal({ organization_id: otherOrganization }));
      expect(res.status).toBe(201);
      expect(Number((await userRow(ctx, res.body.data.user.id)).organization_id)).toBe(adminOrganization);
    });

    test('refuses an unknown organization_id from a Super_admin on field organization_id', async () => {
      const organizationId = await createOrganization(ctx);
      await ctx.db('organizations').where({ id: organizationId }).delete();
      const res = await register(registration.superAdmin, minimal({ organization_id: organizationId }));
      expect(failingFields(res)).toEqual(['organization_id']);
      expect(messageFor(res, 'organization_id')).toBe('Unknown organization');
    });

    test.each([
      ['a negative number', -4],
      ['a fraction', 1.5],
      ['a word', 'one'],
      ['an object', { id: 1 }],
    ])('refuses %s as organization_id', async (_label, organizationId) => {
      expect(failingFields(await register(registration.superAdmin, minimal({ organization_id: organizationId })))).toEqual(['organization_id']);
    });
  });

  describe('duplicates', () => {
    test('refuses a taken e-mail with 409 `User with this email already exists`', async () => {
      const existing = await createUser(ctx);
      const res = await register(registration.superAdmin, minimal({ email: existing.email }));
      expectError(res, 409, 'User with this email already exists');
    });

    test('refuses a taken e-mail written in another case with 409', async () => {
      const existing = await createUser(ctx);
      expectError(
        await register(registration.superAdmin, minimal({ email: existing.email.toUpperCase() })),
        409,
        'User with this email already exists',
      );
    });

    test('refuses a taken service number with 409 `User with this service number already exists`', async () => {
      const existing = await createUser(ctx);
      const body = minimal({ service_no: existing.service_no });
      expectError(await register(registration.superAdmin, body), 409, 'User with this service number already exists');
      expect(await ctx.db('users').where({ email: body.email }).first('id')).toBeUndefined();
    });

    test('refuses a taken service number of a deactivated user', async () => {
      const existing = await createUser(ctx, { is_active: false });
      expectError(
        await register(registration.superAdmin, minimal({ service_no: existing.service_no })),
        409,
        'User with this service number already exists',
      );
    });

    test('registers only one of two concurrent registrations of the same e-mail', async () => {
      const email = uniqueEmail('race');
      const results = await Promise.all([register(registration.superAdmin, minimal({ email })), register(registration.superAdmin, minimal({ email }))]);
      expect(results.map((r) => r.status).sort()).toEqual([201, 409]);
      expect(await ctx.db('users').where({ email }).count({ n: '*' }).first()).toMatchObject({ n: 1 });
    });
  });
});

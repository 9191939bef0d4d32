import { setupTestContext } from '../helpers/context';
import { createDepartment, createUnit, unique } from '../helpers/factory';
import { expectError, failingFields, freeOneCharacterServiceNo, login, messageFor, registrationFixture, registerBody, uniqueServiceNo, userRow } from './auth-support';

describe('POST /api/auth/register validation and name mapping', () => {
  const ctx = setupTestContext();
  const registration = registrationFixture(ctx);
  const { register } = registration;
  const minimal = registerBody;
  const idOf = async (table: string, name: string) => Number((await ctx.db(table).where({ name }).first('id')).id);

  describe('name-valued fields', () => {
    test('maps unit, rank, designation, department and role by name, case-insensitively', async () => {
      const res = await register(
        registration.superAdmin,
        minimal({
          unit: 'iCt DIRECTORATE',
          rank: 'lieutenant colonel',
          designation: 'SOFTWARE ENGINEER',
          department: 'help desk',
          role: 'aDmIn',
        }),
      );
      expect(res.status).toBe(201);
      expect(res.body.data.user).toMatchObject({ unit: 'ICT Directorate', rank: 'Lieutenant Colonel', role: 'Admin' });
      const ict = Number((await ctx.db('units').where({ code: 'ICT' }).first('id')).id);
      const row = await userRow(ctx, res.body.data.user.id);
      expect(Number(row.unit_id)).toBe(ict);
      expect(Number(row.rank_id)).toBe(await idOf('ranks', 'Lieutenant Colonel'));
      expect(Number(row.designation_id)).toBe(await idOf('designations', 'Software Engineer'));
      expect(Number(row.department_id)).toBe(
        Number((await ctx.db('departments').where({ unit_id: ict, name: 'Help Desk' }).first('id')).id),
      );
      expect(Number(row.role_id)).toBe(2);
    });

    test('maps the unit by its code, case-insensitively', async () => {
      const res = await register(registration.superAdmin, minimal({ unit: 'fin' }));
      expect(res.status).toBe(201);
      expect(res.body.data.user.unit).toBe('Finance and Accounts Directorate');
    });

    test('maps the department by name within the named unit only', async () => {
      const first = await createUnit(ctx);
      const second = await createUnit(ctx);
      const name = unique('Shared Dept ');
      await createDepartment(ctx, first.id, name);
      const inSecond = await createDepartment(ctx, second.id, name);

      const res = await register(registration.superAdmin, minimal({ unit: second.name, department: name.toUpperCase() }));
      expect(res.status).toBe(201);
      const row = await userRow(ctx, res.body.data.user.id);
      expect(Number(row.unit_id)).toBe(second.id);
      expect(Number(row.department_id)).toBe(inSecond.id);
    });

    test('refuses a department of another unit with `Unknown department`', async () => {
      const home = await createUnit(ctx);
      const elsewhere = await createUnit(ctx);
      const department = await createDepartment(ctx, elsewhere.id);
      const res = await register(registration.superAdmin, minimal({ unit: home.name, department: department.name }));
      expect(failingFields(res)).toEqual(['department']);
      expect(messageFor(res, 'department')).toBe('Unknown department');
    });

    test('lists every unknown name at once', async () => {
      const body = minimal({
        unit: unique('No Such Unit '),
        designation: unique('No Such Designation '),
        rank: unique('No Such Rank '),
        role: unique('NoSuchRole'),
      });
      const res = await register(registration.superAdmin, body);
      expect(failingFields(res)).toEqual(['designation', 'rank', 'role', 'unit']);
      expect(messageFor(res, 'unit')).toBe('Unknown unit');
      expect(messageFor(res, 'designation')).toBe('Unknown designation');
      expect(messageFor(res, 'rank')).toBe('Unknown rank');
      expect(messageFor(res, 'role')).toBe('Unknown role');
      expect(await ctx.db('users').where({ email: body.email }).first('id')).toBeUndefined();
    });

    test('lists an unknown department with the other unknown names', async () => {
      const res = await register(registration.superAdmin, minimal({ department: unique('No Dept '), rank: unique('No Rank ') }));
      expect(failingFields(res)).toEqual(['department', 'rank']);
      expect(messageFor(res, 'department')).toBe('Unknown department');
    });
  });

  describe('validation', () => {
    test('lists every missing required field of an empty body', async () => {
      const res = await register(registration.superAdmin, {});
      expect(failingFields(res)).toEqual(['designation', 'email', 'name', 'password', 'service_no', 'unit']);
      expect(messageFor(res, 'email')).toBe('Email is required');
    });

    test('lists every failing field at once', async () => {
      const res = await register(registration.superAdmin, {
        name: 'A',
        email: 'not-an-email',
        password: 'short',
        service_no: 'S'.repeat(51),
        unit: 'Headquarters',
        designation: 'Director',
        phone: '1'.repeat(21),
        mobile: '2'.repeat(21),
        alternative_mobile: '3'.repeat(21),
        branch: 'B'.repeat(101),
      });
      expect(failingFields(res)).toEqual(
        ['alternative_mobile', 'branch', 'email', 'mobile', 'name', 'password', 'phone', 'service_no'].sort(),
      );
      expect(messageFor(res, 'email')).toBe('Please provide a valid email address');
    });

    test.each([
      ['2 characters', 'Al', true],
      ['100 characters', 'N'.repeat(100), true],
      ['1 character', 'A', false],
      ['101 characters', 'N'.repeat(101), false],
    ])('name of %s: accepted %s', async (_label, name, accepted) => {
      const res = await register(registration.superAdmin, minimal({ name }));
      if (accepted) {
        expect(res.status).toBe(201);
        expect(res.body.data.user.name).toBe(name);
      } else {
        expect(failingFields(res)).toEqual(['name']);
      }
    });

    test('service_no of 50 characters is accepted, 51 refused, empty refused', async () => {
      const fifty = `${uniqueServiceNo()}${'0'.repeat(50)}`.slice(0, 50);
      const ok = await register(registration.superAdmin, minimal({ service_no: fifty }));
      expect(ok.status).toBe(201);
      expect(ok.body.data.user.service_no).toBe(fifty);
      expect(failingFields(await register(registration.superAdmin, minimal({ service_no: `${fifty}1` })))).toEqual(['service_no']);
      expect(failingFields(await register(registration.superAdmin, minimal({ service_no: '' })))).toEqual(['service_no']);
    });

    test('accepts a one-character service_no', async () => {
      const serviceNo = await freeOneCharacterServiceNo(ctx, 'QWERTYUIOPASDFGHJKLZXCVBNM');
      const res = await register(registration.superAdmin, minimal({ service_no: serviceNo }));
      expect(res.status).toBe(201);
      expect(res.body.data.user.service_no).toBe(serviceNo);
      // give the character back, so later runs on a shared database find it free
      await ctx.db('users').where({ id: res.body.data.user.id }).update({ service_no: uniqueServiceNo() });
    });

    test.each(['phone', 'mobile', 'alternative_mobile'])('%s of 20 characters is accepted, 21 refused', async (field) => {
      const ok = await register(registration.superAdmin, minimal({ [field]: '0'.repeat(20) }));
      expect(ok.status).toBe(201);
      expect((await userRow(ctx, ok.body.data.user.id))[field]).toBe('0'.repeat(20));
      const refused = await register(registration.superAdmin, minimal({ [field]: '0'.repeat(21) }));
      expect(failingFields(refused)).toEqual([field]);
    });

    test('accepts a 6-character password with a lower-case letter, an upper-case letter and a digit', async () => {
      const body = minimal({ password: 'Abcde1' });
      expect((await register(registration.superAdmin, body)).status).toBe(201);
      expect((await login(ctx, { email: body.email, password: 'Abcde1' })).status).toBe(200);
    });

    test('refuses a 5-character password', async () => {
      const res = await register(registration.superAdmin, minimal({ password: 'Abcd1' }));
      expect(failingFields(res)).toEqual(['password']);
      expect(messageFor(res, 'password')).toBe('Password must be at least 6 characters');
    });

    test.each([
      ['no lower-case letter', 'ABCDEF1'],
      ['no upper-case letter', 'abcdef1'],
      ['no digit', 'Abcdefg'],
    ])('refuses a password with %s', async (_label, password) => {
      const res = await register(registration.superAdmin, minimal({ password }));
      expect(failingFields(res)).toEqual(['password']);
      expect(messageFor(res, 'password')).toBe(
        'Password must contain at least one lowercase letter, one uppercase letter, and one number',
      );
    });

    test('accepts a password of exactly 72 UTF-8 bytes in multi-byte characters', async () => {
      const password = `Aa1${'é'.repeat(34)}x`; // 38 characters, 72 bytes
      expect(Buffer.byteLength(password)).toBe(72);
      const body = minimal({ password });
      expect((await register(registration.superAdmin, body)).status).toBe(201);
      expect((await login(ctx, { email: body.email, password })).status).toBe(200);
    });

    test('refuses a password over 72 UTF-8 bytes in fewer than 72 characters', async () => {
      const password = `Aa1${'é€'.repeat(24)}`; // 51 characters, 123 bytes
      expect(password.length).toBeLessThan(72);
      expect(Buffer.byteLength(password)).toBeGreaterThan(72);
      const body = minimal({ password });
      const res = await register(registration.superAdmin, body);
      expect(failingFields(res)).toEqual(['password']);
      expect(messageFor(res, 'password')).toBe('Password must be at most 72 bytes');
      expect(await ctx.db('users').where({ email: body.email }).first('id')).toBeUndefined();
    });

    test('refuses a password of 73 bytes', async () => {
      const res = await register(registration.superAdmin, minimal({ password: `Aa1${'é'.repeat(34)}xy` }));
      expect(messageFor(res, 'password')).toBe('Password must be at most 72 bytes');
    });

    test('refuses values of the wrong JSON type with 400, listing each field', async () => {
      const res = await register(registration.superAdmin, {
        name: 12345,
        email: { address: 'a@example.test' },
        password: ['N3wUserPass'],
        service_no: 42,
        unit: ['Headquarters'],
        designation: { name: 'Director' },
        rank: true,
        department: 7,
        branch: [],
        sub_branch: {},
        role: 3,
        phone: 1711111111,
        mobile: ['x'],
        alternative_mobile: { n: 1 },
      });
      expect(failingFields(res)).toEqual(
        [
          'alternative_mobile', 'branch', 'department', 'designation', 'email', 'mobile', 'name', 'password',
          'phone', 'rank', 'role', 'service_no', 'sub_branch', 'unit',
        ].sort(),
      );
    });

    test('keeps spaces around a password: it is not trimmed', async () => {
      const body = minimal({ password: '  Spaced1  ' });
      expect((await register(registration.superAdmin, body)).status).toBe(201);
      expectError(await login(ctx, { email: body.email, password: 'Spaced1' }), 401, 'Invalid credentials');
      expect((await login(ctx, { email: body.email, password: '  Spaced1  ' })).status).toBe(200);
    });

    test('refuses a name that is only spaces', async () => {
      expect(failingFields(await register(registration.superAdmin, minimal({ name: '   ' })))).toEqual(['name']);
    });

    test('ignores fields that register does not take', async () => {
      const body = minimal({ is_active: false, role_id: 1, password_hash: 'x', token_version: 9, status: 'busy' });
      const res = await register(registration.superAdmin, body);
      expect(res.status).toBe(201);
      const row = await userRow(ctx, res.body.data.user.id);
      expect(Number(row.role_id)).toBe(3);
      expect(Boolean(Number(row.is_active))).toBe(true);
      expect(Number(row.token_version)).toBe(0);
      expect(row.status).toBe('offline');
      expect(String(row.password_hash)).toMatch(/^\$2b\$/);
    });
  });
});

import request from 'supertest';
import { setupTestContext } from '../helpers/context';
import { bearer, createUser } from '../helpers/factory';
import { failingFields, freeOneCharacterServiceNo, messageFor, uniqueServiceNo, userRow } from './auth-support';

describe('PUT /api/auth/profile validation', () => {
  const ctx = setupTestContext();
  const update = (user: { token: string }, body: unknown) =>
    request(ctx.app).put('/api/auth/profile').set(bearer(user)).send(body as object);

  test.each([
    ['2 characters', 'Al', true],
    ['100 characters', 'N'.repeat(100), true],
    ['1 character', 'A', false],
    ['101 characters', 'N'.repeat(101), false],
    ['only spaces', '    ', false],
  ])('name of %s: accepted %s', async (_label, name, accepted) => {
    const user = await createUser(ctx);
    const res = await update(user, { name });
    if (accepted) {
      expect(res.status).toBe(200);
      expect(res.body.data.user.name).toBe(name);
    } else {
      expect(failingFields(res)).toEqual(['name']);
      expect((await userRow(ctx, user.id)).name).toBe(user.name);
    }
  });

  test('service_no of 20 characters is accepted, 21 and 0 refused', async () => {
    const user = await createUser(ctx);
    const twenty = `${uniqueServiceNo(20)}${'0'.repeat(20)}`.slice(0, 20);
    const ok = await update(user, { service_no: twenty });
    expect(ok.status).toBe(200);
    expect(ok.body.data.user.service_no).toBe(twenty);
    expect(failingFields(await update(user, { service_no: `${twenty}1` }))).toEqual(['service_no']);
    expect(failingFields(await update(user, { service_no: '' }))).toEqual(['service_no']);
    expect((await userRow(ctx, user.id)).service_no).toBe(twenty);
  });

  test('accepts a one-character service_no', async () => {
    const user = await createUser(ctx);
    const serviceNo = await freeOneCharacterServiceNo(ctx, 'qwertyuiopasdfghjklzxcvbnm');
    const res = await update(user, { service_no: serviceNo });
    expect(res.status).toBe(200);
    expect(res.body.data.user.service_no).toBe(serviceNo);
    // give the character back for later runs on a shared database
    await ctx.db('users').where({ id: user.id }).update({ service_no: uniqueServiceNo() });
  });

  test.each(['phone', 'mobile', 'alternative_mobile'])('%s of 20 characters is accepted, 21 refused', async (field) => {
    const user = await createUser(ctx);
    const ok = await update(user, { [field]: '9'.repeat(20) });
    expect(ok.status).toBe(200);
    expect(ok.body.data.user[field]).toBe('9'.repeat(20));
    const refused = await update(user, { [field]: '8'.repeat(21) });
    expect(failingFields(refused)).toEqual([field]);
    expect((await userRow(ctx, user.id))[field]).toBe('9'.repeat(20));
  });

  test('avatar of 500 characters is accepted, 501 refused', async () => {
    const user = await createUser(ctx);
    const prefix = 'https://example.com/';
    const avatar = prefix + 'a'.repeat(500 - prefix.length);
    expect(avatar).toHaveLength(500);
    const ok = await update(user, { avatar });
    expect(ok.status).toBe(200);
    expect(ok.body.data.user.avatar).toBe(avatar);
    const refused = await update(user, { avatar: `${avatar}b` });
    expect(failingFields(refused)).toEqual(['avatar']);
  });

  test('refuses an avatar that is not an http(s) URL', async () => {
    const user = await createUser(ctx);
    for (const avatar of ['not a url', 'javascript:alert(1)', 'ftp://example.com/a.png']) {
      expect(failingFields(await update(user, { avatar }))).toEqual(['avatar']);
    }
  });

  test('refuses a malformed e-mail with `Please provide a valid email address`', async () => {
    const user = await createUser(ctx);
    const res = await update(user, { email: 'nope@' });
    expect(failingFields(res)).toEqual(['email']);
    expect(messageFor(res, 'email')).toBe('Please provide a valid email address');
  });

  test.each(['rank_id', 'unit_id', 'department_id', 'designation_id'])('refuses %s that is not a positive integer', async (field) => {
    const user = await createUser(ctx);
    for (const value of [0, -1, 1.5, 'abc', true, [1], { id: 1 }]) {
      const res = await update(user, { [field]: value });
      expect({ value, fields: failingFields(res) }).toEqual({ value, fields: [field] });
    }
  });

  test.each(['unit_id', 'designation_id'])('refuses null for the required reference %s', async (field) => {
    const user = await createUser(ctx);
    expect(failingFields(await update(user, { [field]: null }))).toEqual([field]);
  });

  test('lists every failing field at once', async () => {
    const user = await createUser(ctx);
    const res = await update(user, {
      name: 'A',
      email: 'bad',
      service_no: '',
      phone: '1'.repeat(21),
      mobile: '2'.repeat(21),
      alternative_mobile: '3'.repeat(21),
      rank_id: -1,
      unit_id: 'x',
      department_id: 0,
      designation_id: 1.5,
      avatar: 'not-a-url',
    });
    expect(failingFields(res)).toEqual(
      [
        'alternative_mobile', 'avatar', 'department_id', 'designation_id', 'email', 'mobile', 'name',
        'phone', 'rank_id', 'service_no', 'unit_id',
      ].sort(),
    );
  });

  test('refuses values of the wrong JSON type with 400, not 500', async () => {
    const user = await createUser(ctx);
    const res = await update(user, {
      name: 12345,
      email: ['a@example.test'],
      service_no: { value: 'x' },
      phone: 1711000000,
      mobile: ['x'],
      alternative_mobile: { a: 1 },
      avatar: 42,
    });
    expect(failingFields(res)).toEqual(
      ['alternative_mobile', 'avatar', 'email', 'mobile', 'name', 'phone', 'service_no'].sort(),
    );
    expect((await userRow(ctx, user.id)).name).toBe(user.name);
  });

  test.each([
    ['an array', [{ name: 'Array Body' }]],
    ['a string', 'just text'],
  ])('refuses a body that is %s: 400', async (_label, body) => {
    const user = await createUser(ctx);
    const res = await request(ctx.app)
      .put('/api/auth/profile')
      .set(bearer(user))
      .set('Content-Type', 'application/json')
      .send(JSON.stringify(body));
    expect({ status: res.status, message: res.body.message }).toEqual(
      Array.isArray(body) ? { status: 400, message: 'Validation failed' } : { status: 400, message: 'Malformed JSON body' },
    );
    expect((await userRow(ctx, user.id)).name).toBe(user.name);
  });
});

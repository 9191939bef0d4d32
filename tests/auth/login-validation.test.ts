import request from 'supertest';
import { setupTestContext } from '../helpers/context';
import { createUser, unique } from '../helpers/factory';
import { expectError, failingFields, login, messageFor } from './auth-support';

describe('POST /api/auth/login validation', () => {
  // validation failures count against the login limit like wrong passwords do, and every body
  // without a string e-mail shares one identifier: this file makes many, so its limit is raised
  const ctx = setupTestContext({ LOGIN_RATE_LIMIT_MAX: '100000' });

  test('lists every missing field of an empty body', async () => {
    const res = await login(ctx, {});
    expect(failingFields(res)).toEqual(['email', 'password']);
    expect(messageFor(res, 'password')).toBe('Password is required');
  });

  test('refuses a malformed e-mail with `Please provide a valid email address`', async () => {
    const res = await login(ctx, { email: 'not-an-email', password: 'Whatever1' });
    expect(failingFields(res)).toEqual(['email']);
    expect(messageFor(res, 'email')).toBe('Please provide a valid email address');
  });

  test.each([
    ['a number', 12345],
    ['an object', { $ne: '' }],
    ['an array', ['a@example.test']],
    ['a boolean', true],
  ])('refuses %s as email with 400, not 500', async (_label, email) => {
    const res = await login(ctx, { email, password: 'Whatever1' });
    expect(failingFields(res)).toEqual(['email']);
  });

  test.each([
    ['a number', 12345678],
    ['an object', { $gt: '' }],
    ['an array', ['Whatever1']],
    ['null', null],
  ])('refuses %s as password with 400, not 500', async (_label, password) => {
    const res = await login(ctx, { email: `${unique('t')}@example.test`, password });
    expect(failingFields(res)).toEqual(['password']);
  });

  test.each([
    ['a number', 42],
    ['an object', { a: 1 }],
    ['an array', ['x']],
    ['an empty string', ''],
  ])('refuses %s as login_id with 400, not 500', async (_label, loginId) => {
    const res = await login(ctx, { login_id: loginId, password: 'Whatever1' });
    expect(failingFields(res)).toContain('login_id');
  });

  test.each([
    ['an object', { a: 1 }],
    ['an array', ['x@example.test']],
    ['a number', 5],
  ])('refuses %s as email also when login_id is given, with 400 not 500', async (_label, email) => {
    const user = await createUser(ctx);
    const res = await login(ctx, { login_id: user.service_no, email, password: user.password });
    expect(failingFields(res)).toEqual(['email']);
  });

  test.each([
    ['empty', ''],
    ['null', null],
  ])('signs in by login_id when email is %s', async (_label, email) => {
    const user = await createUser(ctx);
    const res = await login(ctx, { email, login_id: user.service_no, password: user.password });
    expect(res.status).toBe(200);
    expect(res.body.data.user.id).toBe(user.id);
  });

  test('refuses a login_id over 100 characters', async () => {
    const res = await login(ctx, { login_id: 'a'.repeat(101), password: 'Whatever1' });
    expect(failingFields(res)).toEqual(['login_id']);
  });

  test('refuses a password over 72 UTF-8 bytes written in fewer than 72 characters', async () => {
    const password = 'é€'.repeat(24); // 48 characters, 120 bytes
    expect(password.length).toBeLessThan(72);
    expect(Buffer.byteLength(password)).toBeGreaterThan(72);
    const res = await login(ctx, { email: `${unique('t')}@example.test`, password });
    expect(failingFields(res)).toEqual(['password']);
    expect(messageFor(res, 'password')).toBe('Password must be at most 72 bytes');
  });

  test('answers a form-encoded body with 400, not 500', async () => {
    const user = await createUser(ctx);
    const res = await request(ctx.app)
      .post('/api/auth/login')
      .type('form')
      .send({ email: user.email, password: user.password });
    expect(failingFields(res)).toEqual(['email', 'password']);
  });

  test('answers a malformed JSON body with 400 `Malformed JSON body`', async () => {
    const res = await request(ctx.app).post('/api/auth/login').set('Content-Type', 'application/json').send('{"email": ');
    expectError(res, 400, 'Malformed JSON body');
  });
});

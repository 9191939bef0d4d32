import request from 'supertest';
import { setupTestContext } from '../helpers/context';
import { createUser, unique } from '../helpers/factory';
import { epochOf, expectError, failingFields, ISO_MS, login, messageFor, registerAs, registerBody, userRow } from './auth-support';

describe('POST /api/auth/login', () => {
  const ctx = setupTestContext();

  /** A user registered through the API by a Super_admin of the test's own, with rank and branch. */
  async function registerFullUser(password = 'Full1User') {
    const admin = await createUser(ctx, { role: 'Super_admin' });
    const body = registerBody({ password, unit: 'Headquarters', rank: 'Major', branch: 'Signals' });
    const res = await registerAs(ctx, admin, body);
    expect(res.status).toBe(201);
    return { ...body, id: res.body.data.user.id as number };
  }

  describe('success', () => {
    test('answers 200 `Login successful` with the sign-in user of spec 2.2 and both tokens', async () => {
      const user = await registerFullUser();
      const before = Date.now();
      const res = await login(ctx, { email: user.email, password: user.password });

      expect(res.status).toBe(200);
      expect(res.body.status).toBe('success');
      expect(res.body.message).toBe('Login successful');
      expect(Object.keys(res.body.data).sort()).toEqual(['refreshToken', 'token', 'user']);
      expect(typeof res.body.data.token).toBe('string');
      expect(typeof res.body.data.refreshToken).toBe('string');
      expect(res.body.data.token).not.toBe(res.body.data.refreshToken);

      const u = res.body.data.user;
      expect(Object.keys(u).sort()).toEqual(
        ['branch', 'created_at', 'email', 'id', 'last_seen', 'name', 'rank', 'role', 'service_no', 'status', 'unit'].sort(),
      );
      expect(u).toEqual({
        id: user.id,
        name: user.name,
        email: user.email.toLowerCase(),
        role: 'User',
        rank: 'Major',
        service_no: user.service_no,
        unit: 'Headquarters',
        branch: 'Signals',
        status: 'online',
        last_seen: expect.stringMatching(ISO_MS),
        created_at: expect.stringMatching(ISO_MS),
      });
      expect(Number.isInteger(u.id)).toBe(true);
      expect(Date.parse(u.last_seen)).toBeGreaterThanOrEqual(before - 1000);
      expect(Date.parse(u.last_seen)).toBeLessThanOrEqual(Date.now() + 1000);
    });

    test('gives the role name of the user (Super_admin, Admin, User)', async () => {
      for (const role of ['Super_admin', 'Admin', 'User'] as const) {
        const user = await createUser(ctx, { role });
        const res = await login(ctx, { email: user.email, password: user.password });
        expect(res.status).toBe(200);
        expect(res.body.data.user.role).toBe(role);
      }
    });

    test('issues tokens that authenticate the user and refresh', async () => {
      const user = await createUser(ctx);
      const res = await login(ctx, { email: user.email, password: user.password });
      const profile = await request(ctx.app).get('/api/auth/profile').set({ Authorization: `Bearer ${res.body.data.token}` });
      expect(profile.status).toBe(200);
      expect(profile.body.data.user.id).toBe(user.id);
      const refreshed = await request(ctx.app).post('/api/auth/refresh-token').send({ refreshToken: res.body.data.refreshToken });
      expect(refreshed.status).toBe(200);
    });

    test('sets status `online` and last_seen to now in the database', async () => {
      const user = await createUser(ctx);
      const row = await userRow(ctx, user.id);
      expect(row.status).toBe('offline');
      expect(row.last_seen).toBeNull();

      const before = Date.now();
      const res = await login(ctx, { email: user.email, password: user.password });
      expect(res.status).toBe(200);
      const after = await userRow(ctx, user.id);
      expect(after.status).toBe('online');
      const seen = epochOf(after.last_seen)!;
      expect(seen).toBeGreaterThanOrEqual(before - 1000);
      expect(seen).toBeLessThanOrEqual(Date.now() + 1000);
      expect(new Date(seen).toISOString()).toBe(res.body.data.user.last_seen);
    });

    test('matches the e-mail case-insensitively and ignores surrounding spaces', async () => {
      const user = await createUser(ctx);
      const res = await login(ctx, { email: `  ${user.email.toUpperCase()} `, password: user.password });
      expect(res.status).toBe(200);
      expect(res.body.data.user.id).toBe(user.id);
    });

    test('accepts `login_id` holding the e-mail', async () => {
      const user = await createUser(ctx);
      const res = await login(ctx, { login_id: user.email.toUpperCase(), password: user.password });
      expect(res.status).toBe(200);
      expect(res.body.data.user.id).toBe(user.id);
    });

    test('accepts `login_id` holding the service number', async () => {
      const user = await createUser(ctx);
      const res = await login(ctx, { login_id: user.service_no, password: user.password });
      expect(res.status).toBe(200);
      expect(res.body.message).toBe('Login successful');
      expect(res.body.data.user.id).toBe(user.id);
      expect(res.body.data.user.service_no).toBe(user.service_no);
    });

    test('prefers the user whose e-mail is the login_id over one whose service number is', async () => {
      const byEmail = await createUser(ctx, { password: 'Email1Owner' });
      const byServiceNo = await createUser(ctx, { password: 'Service1Owner' });
      await ctx.db('users').where({ id: byServiceNo.id }).update({ service_no: byEmail.email.slice(0, 50) });
      expect(byEmail.email.length).toBeLessThanOrEqual(50);

      const res = await login(ctx, { login_id: byEmail.email, password: 'Email1Owner' });
      expect(res.status).toBe(200);
      expect(res.body.data.user.id).toBe(byEmail.id);
    });

    test('does not treat `email` as a service number', async () => {
      const user = await createUser(ctx);
      await ctx.db('users').where({ id: user.id }).update({ service_no: `${unique('sn')}@example.test`.slice(0, 50) });
      const row = await userRow(ctx, user.id);
      const res = await login(ctx, { email: String(row.service_no), password: user.password });
      expectError(res, 401, 'Invalid credentials');
    });

    test('signs in a user registered through the API with the password given at registration', async () => {
      const user = await registerFullUser('Regist3red');
      const res = await login(ctx, { login_id: user.service_no, password: 'Regist3red' });
      expect(res.status).toBe(200);
      expect(res.body.data.user.id).toBe(user.id);
    });
  });

  describe('credential failures', () => {
    test('refuses an unknown user with 401 `Invalid credentials`', async () => {
      const res = await login(ctx, { email: `${unique('nobody')}@example.test`, password: 'Whatever1' });
      expectError(res, 401, 'Invalid credentials');
      expect(res.body.data).toBeUndefined();
      expect(res.body.errors).toBeUndefined();
    });

    test('refuses a wrong password with 401 `Invalid credentials`', async () => {
      const user = await createUser(ctx);
      const res = await login(ctx, { email: user.email, password: `${user.password}x` });
      expectError(res, 401, 'Invalid credentials');
    });

    test('refuses a deactivated account with the right password with 401 `Invalid credentials`', async () => {
      const user = await createUser(ctx, { is_active: false });
      const res = await login(ctx, { email: user.email, password: user.password });
      expectError(res, 401, 'Invalid credentials');
    });

    test('refuses an account without a password with 401 `Invalid credentials`', async () => {
      const user = await createUser(ctx, { password: null });
      expect((await userRow(ctx, user.id)).password_hash).toBeNull();
      for (const password of ['', 'Anything1', 'null']) {
        const res = await login(ctx, { email: user.email, password });
        // an empty password is a validation failure; any other is a credential failure
        if (password === '') expect(failingFields(res)).toEqual(['password']);
        else expectError(res, 401, 'Invalid credentials');
      }
    });

    test('refuses a wrong password given with login_id', async () => {
      const user = await createUser(ctx);
      const res = await login(ctx, { login_id: user.service_no, password: 'Wrong1Pass' });
      expectError(res, 401, 'Invalid credentials');
    });

    test('leaves status and last_seen unchanged after a failed sign-in', async () => {
      const user = await createUser(ctx);
      await login(ctx, { email: user.email, password: 'Wrong1Pass' });
      const row = await userRow(ctx, user.id);
      expect(row.status).toBe('offline');
      expect(row.last_seen).toBeNull();
    });

    test('rejects the 73rd byte instead of letting bcrypt ignore it', async () => {
      // a correct 72-byte prefix followed by more bytes must not sign in
      const user = await createUser(ctx, { password: `Aa1${'x'.repeat(69)}` });
      const ok = await login(ctx, { email: user.email, password: user.password });
      expect(ok.status).toBe(200);
      const longer = await login(ctx, { email: user.email, password: `${user.password}y` });
      expect(failingFields(longer)).toEqual(['password']);
      expect(messageFor(longer, 'password')).toBe('Password must be at most 72 bytes');
    });
  });

  describe('brute-force limit', () => {
    test('answers 429 after 10 failed attempts of one identifier, but not for another identifier', async () => {
      const user = await createUser(ctx);
      for (let i = 0; i < 10; i++) {
        expect((await login(ctx, { email: user.email, password: 'Wrong1Pass' })).status).toBe(401);
      }
      const limited = await login(ctx, { email: user.email, password: user.password });
      expectError(limited, 429, 'Too many login attempts, please try again later');
      expect(limited.headers['retry-after']).toBeDefined();

      const other = await createUser(ctx);
      expect((await login(ctx, { email: other.email, password: other.password })).status).toBe(200);
    });

    // the limiter keys on the identifier the sign-in uses, not on an empty `email` beside it
    test('counts a sign-in by login_id with an empty email under that login_id', async () => {
      for (let i = 0; i < 10; i++) {
        await login(ctx, { email: '', login_id: unique('nobody'), password: 'Wrong1Pass' });
      }
      const user = await createUser(ctx);
      const res = await login(ctx, { email: '', login_id: user.service_no, password: user.password });
      expect(res.status).toBe(200);
    });

    test('does not count successful sign-ins against the limit', async () => {
      const user = await createUser(ctx);
      for (let i = 0; i < 12; i++) {
        expect((await login(ctx, { email: user.email, password: user.password })).status).toBe(200);
      }
    });
  });
});

import request from 'supertest';
import { setupTestContext } from '../helpers/context';
import { createOrganization, createUser, unique } from '../helpers/factory';
import { epochOf, failingFields, login } from './auth-support';

/** Every failed sign-in leaves a record with its cause (spec 2.7, 4.1 rule 3). */
describe('POST /api/auth/login failed-login records', () => {
  const ctx = setupTestContext();
  const failedLoginsOf = (loginId: string) =>
    ctx.db('failed_login_attempts').where({ login_id: loginId }).select('login_id', 'organization_id', 'ip_address', 'reason', 'attempted_at');

  test('records `User not found` with no organization for an unknown identifier', async () => {
    const email = `${unique('ghost')}@example.test`;
    await login(ctx, { email, password: 'Whatever1' });
    const rows = await failedLoginsOf(email);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ login_id: email, organization_id: null, reason: 'User not found' });
    expect(String(rows[0].ip_address)).toMatch(/127\.0\.0\.1|::1/);
    expect(epochOf(rows[0].attempted_at)).toBeGreaterThan(Date.now() - 60_000);
  });

  test('records `Account is deactivated` with the user organization', async () => {
    const organizationId = await createOrganization(ctx);
    const user = await createUser(ctx, { is_active: false, organization_id: organizationId });
    await login(ctx, { email: user.email, password: user.password });
    const rows = await failedLoginsOf(user.email);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ login_id: user.email, reason: 'Account is deactivated' });
    expect(Number(rows[0].organization_id)).toBe(organizationId);
    expect(rows[0].ip_address).toEqual(expect.stringMatching(/127\.0\.0\.1|::1/));
  });

  test('records `Invalid password` with the user organization', async () => {
    const organizationId = await createOrganization(ctx);
    const user = await createUser(ctx, { organization_id: organizationId });
    await login(ctx, { email: user.email, password: 'Wrong1Pass' });
    const rows = await failedLoginsOf(user.email);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ login_id: user.email, reason: 'Invalid password' });
    expect(Number(rows[0].organization_id)).toBe(organizationId);
    expect(rows[0].ip_address).toEqual(expect.stringMatching(/127\.0\.0\.1|::1/));
  });

  test('records `Invalid password` for an account without a password', async () => {
    const user = await createUser(ctx, { password: null });
    await login(ctx, { email: user.email, password: 'Anything1' });
    const rows = await failedLoginsOf(user.email);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ reason: 'Invalid password' });
    expect(Number(rows[0].organization_id)).toBe(user.organization_id);
  });

  test('records the login_id as given when signing in by service number', async () => {
    const user = await createUser(ctx);
    await login(ctx, { login_id: user.service_no, password: 'Wrong1Pass' });
    const rows = await failedLoginsOf(user.service_no);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ login_id: user.service_no, reason: 'Invalid password' });
  });

  test('records the user agent of the attempt', async () => {
    const email = `${unique('agent')}@example.test`;
    await login(ctx, { email, password: 'Whatever1' }).set('User-Agent', 'auth-test-agent/1.0');
    const row = await ctx.db('failed_login_attempts').where({ login_id: email }).first('user_agent');
    expect(row.user_agent).toBe('auth-test-agent/1.0');
  });

  test('records nothing for a successful sign-in', async () => {
    const user = await createUser(ctx);
    expect((await login(ctx, { email: user.email, password: user.password })).status).toBe(200);
    expect(await failedLoginsOf(user.email)).toHaveLength(0);
  });

  test('records nothing for a request that fails validation', async () => {
    const email = `${unique('invalid')}@example.test`;
    const res = await login(ctx, { email, password: '' });
    expect(failingFields(res)).toEqual(['password']);
    expect(await failedLoginsOf(email)).toHaveLength(0);
  });
});

describe('the address of a failed sign-in, behind a proxy', () => {
  const ctx = setupTestContext({ TRUST_PROXY: 'true' });

  test('is the client address the proxy names, and keeps at most 45 characters (spec 8)', async () => {
    const email = `${unique('far')}@example.test`;
    // an IPv6 address with a zone: longer than any column should hold
    const forwarded = 'fe80:0000:0000:0000:0000:0000:0000:0001%verylonginterfacename0';
    const res = await request(ctx.app).post('/api/auth/login').set('X-Forwarded-For', forwarded).send({ email, password: 'Whatever1' });
    expect(res.status).toBe(401);
    const row = await ctx.db('failed_login_attempts').where({ login_id: email }).first('ip_address');
    expect(row.ip_address).toBe(forwarded.slice(0, 45));
  });
});

import request from 'supertest';
import type { TestContext } from '../helpers/context';
import { bearer, unique } from '../helpers/factory';

/** The Super_admin that the seeds create (tests/helpers/config.ts). */
export const SUPER_ADMIN = { email: 'admin@example.com', password: 'Admin@12345' };
/** Passes the password rule; `WRONG` passes validation and never matches. */
export const STRONG = 'Secur3Pass';
export const WRONG = 'Wr0ngPassword';

/** Every test file builds its app with these: sign-ins from chosen addresses, no login lockout. */
export const SECURITY_TEST_ENV = { LOGIN_RATE_LIMIT_MAX: '1000', TRUST_PROXY: 'loopback' };

export interface Member {
  id: number;
  email: string;
  service_no: string;
  password: string;
  organization_id: number;
  token: string;
}

export interface Org {
  id: number;
  admin: Member;
  user: Member;
}

export async function signIn(ctx: TestContext, email: string, password: string): Promise<string> {
  const res = await request(ctx.app).post('/api/auth/login').send({ email, password });
  if (res.status !== 200) throw new Error(`sign-in of ${email} failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data.token as string;
}

/** An organization made through POST /api/organizations, by the Super_admin. */
export async function createOrganizationViaApi(ctx: TestContext, superToken: string): Promise<number> {
  const res = await request(ctx.app)
    .post('/api/organizations')
    .set(bearer({ token: superToken }))
    .send({ name: unique('Security Org '), code: unique('SEC').slice(0, 30) });
  if (res.status !== 201) throw new Error(`organization create failed: ${res.status} ${JSON.stringify(res.body)}`);
  return Number(res.body.data.organization.id);
}

/** A user registered into `organizationId` through POST /api/auth/register, then signed in. */
export async function registerMember(
  ctx: TestContext,
  superToken: string,
  organizationId: number,
  role: 'Admin' | 'User',
): Promise<Member> {
  const email = `${unique('sec')}@example.test`.toLowerCase();
  const serviceNo = unique('SN-').slice(0, 50);
  const res = await request(ctx.app)
    .post('/api/auth/register')
    .set(bearer({ token: superToken }))
    .send({
      name: `Security ${role}`,
      email,
      password: STRONG,
      service_no: serviceNo,
      unit: 'Headquarters',
      designation: 'Director',
      role,
      organization_id: organizationId,
    });
  if (res.status !== 201) throw new Error(`register failed: ${res.status} ${JSON.stringify(res.body)}`);
  const token = await signIn(ctx, email, STRONG);
  return { id: Number(res.body.data.user.id), email, service_no: serviceNo, password: STRONG, organization_id: organizationId, token };
}

export async function createOrgWithMembers(ctx: TestContext, superToken: string): Promise<Org> {
  const id = await createOrganizationViaApi(ctx, superToken);
  return { id, admin: await registerMember(ctx, superToken, id, 'Admin'), user: await registerMember(ctx, superToken, id, 'User') };
}

/**
 * A failed sign-in through POST /api/auth/login, from `ip`; returns the id of the record it
 * left (the newest with that identifier, in lower case for an e-mail address).
 */
export async function failSignIn(
  ctx: TestContext,
  identifier: string,
  options: { ip?: string; field?: 'email' | 'login_id' } = {},
): Promise<number> {
  const field = options.field ?? (identifier.includes('@') ? 'email' : 'login_id');
  const res = await request(ctx.app)
    .post('/api/auth/login')
    .set('X-Forwarded-For', options.ip ?? '198.51.100.7')
    .send({ [field]: identifier, password: WRONG });
  if (res.status !== 401) throw new Error(`expected a failed sign-in, got ${res.status} ${JSON.stringify(res.body)}`);
  const stored = identifier.includes('@') ? identifier.toLowerCase() : identifier;
  const row = await ctx.db('failed_login_attempts').where({ login_id: stored }).orderBy('id', 'desc').first('id');
  return Number(row.id);
}

/** The member's own password change through PUT /api/auth/change-password; refreshes its token. */
export async function changePassword(ctx: TestContext, member: Member, ip = '198.51.100.8'): Promise<number> {
  const next = member.password === STRONG ? 'Chang3dPass' : STRONG;
  const res = await request(ctx.app)
    .put('/api/auth/change-password')
    .set(bearer(member))
    .set('X-Forwarded-For', ip)
    .send({ currentPassword: member.password, newPassword: next });
  if (res.status !== 200) throw new Error(`change-password failed: ${res.status} ${JSON.stringify(res.body)}`);
  member.password = next;
  member.token = res.body.data.token as string;
  const row = await ctx.db('password_change_logs').where({ user_id: member.id }).orderBy('id', 'desc').first('id');
  return Number(row.id);
}

/** A failed sign-in row written straight into the table, for chosen times. */
export async function insertFailedLogin(
  ctx: TestContext,
  row: { login_id: string | null; organization_id: number | null; attempted_at: Date; ip_address?: string | null; reason?: string },
): Promise<number> {
  const [id] = await ctx.db('failed_login_attempts').insert({
    ip_address: '192.0.2.1',
    user_agent: 'jest',
    reason: 'Invalid password',
    ...row,
  });
  return Number(id);
}

export async function insertPasswordChange(
  ctx: TestContext,
  row: { user_id: number; changed_by: number; organization_id: number; changed_at: Date; change_type?: string },
): Promise<number> {
  const [id] = await ctx.db('password_change_logs').insert({ ip_address: '192.0.2.2', user_agent: 'jest', change_type: 'self', ...row });
  return Number(id);
}

/** GET a security endpoint as `caller`. */
export function getAs(ctx: TestContext, caller: { token: string }, path: string, query: Record<string, unknown> = {}) {
  return request(ctx.app).get(`/api/security/${path}`).set(bearer(caller)).query(query);
}

export const idsOf = (items: Array<{ id: number }>) => items.map((item) => item.id);
export const sortedIds = (items: Array<{ id: number }>) => idsOf(items).sort((a, b) => a - b);
export const sorted = (ids: number[]) => [...ids].sort((a, b) => a - b);

/** The fields of a 400 `Validation failed` body, after checking the envelope and every entry's shape. */
export function failingFields(res: { status: number; body: { status?: string; message?: string; errors?: unknown } }): string[] {
  expect({ status: res.status, message: res.body.message }).toEqual({ status: 400, message: 'Validation failed' });
  expect(res.body.status).toBe('error');
  const errors = res.body.errors as Array<{ field: string; message: string }>;
  for (const entry of errors) expect(Object.keys(entry).sort()).toEqual(['field', 'message']);
  return errors.map((e) => e.field).sort();
}

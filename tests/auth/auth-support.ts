import jwt from 'jsonwebtoken';
import request from 'supertest';
import { toIso } from '../../src/lib/time';
import type { RegisterInput } from '../../src/modules/accounts/register.service';
import type { TestContext } from '../helpers/context';
import { createUser, unique, type TestUser, type UserFields } from '../helpers/factory';

/** ISO 8601 UTC with milliseconds, as every timestamp of the API (DECISIONS 1). */
export const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** A password that passes the password rule (lower, upper, digit). */
export const STRONG = 'Secur3Pass';

export function login(ctx: TestContext, body: Record<string, unknown>) {
  return request(ctx.app).post('/api/auth/login').send(body);
}

/** A user made in the database, then signed in through the API: its tokens come from login. */
export async function signedInUser(ctx: TestContext, fields: UserFields = {}): Promise<TestUser> {
  const user = await createUser(ctx, fields);
  const res = await login(ctx, { email: user.email, password: user.password });
  if (res.status !== 200) throw new Error(`login of a fresh user failed: ${res.status} ${JSON.stringify(res.body)}`);
  return { ...user, token: res.body.data.token, refreshToken: res.body.data.refreshToken };
}

/** The fields of a 400 `Validation failed` body, after checking the envelope and the entry shape. */
export function failingFields(res: request.Response): string[] {
  expect(res.status).toBe(400);
  expect(res.body).toMatchObject({ status: 'error', message: 'Validation failed' });
  expect(Array.isArray(res.body.errors)).toBe(true);
  for (const entry of res.body.errors) {
    expect(Object.keys(entry).sort()).toEqual(['field', 'message']);
    expect(typeof entry.field).toBe('string');
    expect(typeof entry.message).toBe('string');
  }
  return (res.body.errors as Array<{ field: string }>).map((e) => e.field).sort();
}

/** The message given for `field` in a validation failure. */
export function messageFor(res: request.Response, field: string): string | undefined {
  return (res.body.errors as Array<{ field: string; message: string }> | undefined)?.find((e) => e.field === field)?.message;
}

export function expectError(res: request.Response, status: number, message: string): void {
  expect({ status: res.status, body: res.body }).toMatchObject({ status, body: { status: 'error', message } });
}

/** Milliseconds since the epoch of a timestamp column, whatever form the database returns it in. */
export function epochOf(value: unknown): number | null {
  const iso = toIso(value);
  return iso === null ? null : Date.parse(iso);
}

/**
 * The raw users row of `id`, without its order label and the change stamp that comes with it:
 * a change anywhere in the directory may renumber labels, and a renumbered row is stamped
 * (other test files change the shared MySQL database at the same time).
 */
export async function userRow(ctx: TestContext, id: number): Promise<Record<string, unknown>> {
  const { tree_ord: _label, change_version: _stamp, ...rest } = await ctx.db('users').where({ id }).first();
  return rest;
}

export const nowSeconds = () => Math.floor(Date.now() / 1000);

/** Access-token claims exactly as the service issues them, for forging variants. */
export function accessClaims(userId: number, overrides: Record<string, unknown> = {}) {
  return { sub: String(userId), role: 'User', org: 1, ver: 0, typ: 'access', ...overrides };
}

/**
 * Signs `payload` with jsonwebtoken directly. Options default to what the service uses
 * (HS256, its issuer and audience, an hour of life); `exp`/`iss`/`aud` in the payload win.
 */
export function forge(
  ctx: TestContext,
  payload: Record<string, unknown>,
  { secret = ctx.config.jwt.secret, ...options }: jwt.SignOptions & { secret?: string } = {},
): string {
  const defaults: jwt.SignOptions = { algorithm: 'HS256' };
  if (!('iss' in payload)) defaults.issuer = ctx.config.jwt.issuer;
  if (!('aud' in payload)) defaults.audience = ctx.config.jwt.audience;
  if (!('exp' in payload)) defaults.expiresIn = 3600;
  return jwt.sign(payload, secret, { ...defaults, ...options });
}

/**
 * Like `forge` with the service's options (HS256, its issuer and audience, an hour of life), but the
 * token carries no `claim` at all: no `exp`, `iss` or `aud`.
 */
export function forgeWithout(
  ctx: TestContext,
  payload: Record<string, unknown>,
  claim: 'exp' | 'iss' | 'aud',
  { secret = ctx.config.jwt.secret }: { secret?: string } = {},
): string {
  const options: jwt.SignOptions = { algorithm: 'HS256' };
  if (claim !== 'iss') options.issuer = ctx.config.jwt.issuer;
  if (claim !== 'aud') options.audience = ctx.config.jwt.audience;
  if (claim !== 'exp') options.expiresIn = 3600;
  return jwt.sign(payload, secret, options);
}

/** GET /api/auth/profile with `authorization` as the Authorization header (none when undefined). */
export function profileWith(ctx: TestContext, authorization?: string) {
  const req = request(ctx.app).get('/api/auth/profile');
  return authorization === undefined ? req : req.set('Authorization', authorization);
}

/** An unsigned token (`alg: none`) carrying otherwise valid claims. */
export function unsignedToken(ctx: TestContext, payload: Record<string, unknown>): string {
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const claims = {
    iss: ctx.config.jwt.issuer,
    aud: ctx.config.jwt.audience,
    iat: nowSeconds(),
    exp: nowSeconds() + 3600,
    ...payload,
  };
  return `${part({ alg: 'none', typ: 'JWT' })}.${part(claims)}.`;
}

export const uniqueEmail = (prefix = 'auth') => `${unique(prefix)}@example.test`.toLowerCase();
export const uniqueServiceNo = (max = 50) => unique('SN').slice(0, max);

/** A register body: the service's input, with room for the wrong fields a test sends. */
export type RegisterBody = RegisterInput & { [field: string]: unknown };

/** The smallest valid register body: the fields DECISIONS 4 makes required. */
export function registerBody(overrides: Record<string, unknown> = {}): RegisterBody {
  return {
    name: `New ${unique()}`,
    email: uniqueEmail('reg'),
    password: 'N3wUserPass',
    service_no: uniqueServiceNo(),
    unit: 'Headquarters',
    designation: 'Director',
    ...overrides,
  } as RegisterBody;
}

export function registerAs(ctx: TestContext, actor: { token: string }, body: Record<string, unknown>) {
  return request(ctx.app).post('/api/auth/register').set('Authorization', `Bearer ${actor.token}`).send(body);
}

/**
 * For the register tests: registers a beforeAll that makes a Super_admin (`superAdmin`, read it in a
 * test or hook), and `register(actor, body)`, POST /api/auth/register as `actor`.
 */
export function registrationFixture(ctx: TestContext) {
  let superAdmin: TestUser | undefined;
  beforeAll(async () => {
    superAdmin = await createUser(ctx, { role: 'Super_admin' });
  });
  return {
    get superAdmin(): TestUser {
      if (superAdmin === undefined) throw new Error('registrationFixture: superAdmin is made in beforeAll; read it in a test or hook');
      return superAdmin;
    },
    register: (actor: { token: string }, body: Record<string, unknown>) => registerAs(ctx, actor, body),
  };
}

/** A one-character service number that no user holds now (give it back after the test). */
export async function freeOneCharacterServiceNo(ctx: TestContext, alphabet: string): Promise<string> {
  const taken = new Set((await ctx.db('users').whereRaw('LENGTH(service_no) = 1').pluck('service_no')).map(String));
  const free = [...alphabet].filter((c) => !taken.has(c));
  if (free.length === 0) throw new Error('no free one-character service number');
  return free[Math.floor(Math.random() * free.length)];
}

import bcrypt from 'bcrypt';
import { changeDirectory, insertContact } from '../../src/modules/contacts';
import type { TestContext } from './context';

let counter = 0;

/** A value no other test of this run (or of an earlier run on the same MySQL database) uses. */
export function unique(prefix = 'x'): string {
  counter += 1;
  return `${prefix}${Date.now().toString(36)}${process.pid.toString(36)}${counter}${Math.random().toString(36).slice(2, 6)}`;
}

export const ROLE = { Super_admin: 1, Admin: 2, User: 3 } as const;
export type RoleName = keyof typeof ROLE;

export const PASSWORD = 'Passw0rd!';
const hashes = new Map<string, string>();
async function hashOf(password: string): Promise<string> {
  if (!hashes.has(password)) hashes.set(password, await bcrypt.hash(password, 4));
  return hashes.get(password)!;
}

export async function createOrganization(ctx: TestContext): Promise<number> {
  const now = new Date();
  const [id] = await ctx.db('organizations').insert({ name: unique('Org '), code: unique('O'), created_at: now, updated_at: now });
  return Number(id);
}

export async function createUnit(ctx: TestContext, fields: { parent_id?: number | null; name?: string } = {}) {
  const now = new Date();
  const name = fields.name ?? unique('Unit ');
  const [id] = await ctx.db('units').insert({
    name,
    code: unique('U').slice(0, 30),
    parent_id: fields.parent_id ?? null,
    created_at: now,
    updated_at: now,
  });
  return { id: Number(id), name };
}

export async function createDepartment(ctx: TestContext, unitId: number, name = unique('Dept ')) {
  const now = new Date();
  const [id] = await ctx.db('departments').insert({ unit_id: unitId, name, created_at: now, updated_at: now });
  return { id: Number(id), name };
}

export async function anyDesignationId(ctx: TestContext): Promise<number> {
  return Number((await ctx.db('designations').orderBy('id').first('id')).id);
}

export interface TestUser {
  id: number;
  name: string;
  email: string;
  service_no: string;
  password: string;
  unit_id: number;
  organization_id: number;
  token: string;
  refreshToken: string;
}

export interface UserFields {
  role?: RoleName;
  name?: string;
  unit_id?: number;
  department_id?: number | null;
  parent_id?: number | null;
  organization_id?: number;
  password?: string | null;
  is_active?: boolean;
  phone?: string;
}

/**
 * Removes a user's row for good, as only a database administrator would (the API deletes
 * softly). Under the directory lock, as every change of the tree: on a shared MySQL database a
 * row vanishing unlocked could be the neighbour that another file's insert is placing itself
 * next to.
 */
export async function removeUser(ctx: TestContext, id: number): Promise<void> {
  await changeDirectory(ctx.db, async (trx) => {
    await trx('users').where({ id }).delete();
  });
}

/** A user made straight in the database (with real, signed tokens), for tests about something else. */
export async function createUser(ctx: TestContext, fields: UserFields = {}): Promise<TestUser> {
  const unitId = fields.unit_id ?? (await createUnit(ctx)).id;
  const password = fields.password === undefined ? PASSWORD : fields.password;
  const email = `${unique('user')}@example.test`.toLowerCase();
  const serviceNo = unique('SN').slice(0, 50);
  const name = fields.name ?? `Test ${unique()}`;
  const roleId = ROLE[fields.role ?? 'User'];
  const organizationId = fields.organization_id ?? 1;
  const passwordHash = password === null ? null : await hashOf(password);
  const designationId = await anyDesignationId(ctx);
  // inside the transaction only `trx` may be used: SQLite has one connection
  const id = await changeDirectory(ctx.db, async (trx) => {
    const newId = await insertContact(trx, {
      name,
      email,
      service_no: serviceNo,
      password_hash: passwordHash,
      unit_id: unitId,
      department_id: fields.department_id ?? null,
      designation_id: designationId,
      parent_id: fields.parent_id ?? null,
      role_id: roleId,
      organization_id: organizationId,
      phone: fields.phone ?? '01700000000',
    });
    if (fields.is_active === false) await trx('users').where({ id: newId }).update({ is_active: false });
    return newId;
  });
  const subject = { id, role_name: fields.role ?? 'User', organization_id: organizationId, token_version: 0 };
  return {
    id,
    name,
    email,
    service_no: serviceNo,
    password: password ?? '',
    unit_id: unitId,
    organization_id: organizationId,
    token: ctx.tokens.signAccess(subject),
    refreshToken: ctx.tokens.signRefresh(subject),
  };
}

export const bearer = (user: { token: string }) => ({ Authorization: `Bearer ${user.token}` });

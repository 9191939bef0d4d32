import request from 'supertest';
import { changeDirectory, insertContact, type ContactInsert } from '../../src/modules/contacts';
import { login, userRow } from '../auth/auth-support';
import type { TestContext } from '../helpers/context';
import { anyDesignationId, bearer, createDepartment, createUnit, createUser, unique, type RoleName, type TestUser } from '../helpers/factory';

/** Shared pieces of the /api/contacts tests: constants, the per-file fixture, request helpers and sample data. */

export { ISO_MS, messageFor } from '../auth/auth-support';

/** Every field of a contact as the API shows it (spec 2.4). */
export const CONTACT_FIELDS = [
  'id', 'name', 'rank_id', 'rank_name', 'service_no', 'unit_id', 'unit_name', 'unit_code', 'department_id', 'department_name',
  'designation_id', 'designation_name', 'phone', 'mobile', 'alternative_mobile', 'email', 'parent_id', 'parent_name',
  'is_active', 'role_id', 'role_name', 'avatar', 'status', 'last_seen', 'created_at', 'updated_at',
];

/** Columns of the users row that a contact never shows. */
export const INTERNAL_FIELDS = ['password_hash', 'password', 'token_version', 'organization_id', 'sort_name', 'tree_ord', 'depth'];

export interface Reference {
  id: number;
  name: string;
}

/** A valid POST /api/contacts body: the required fields, unique where they must be. */
export type ContactBody = Record<string, unknown> & { name: string; email: string; service_no: string; phone: string };

/** What a test file asks its fixture to make before its tests, in this order. */
export interface ContactsNeeds {
  /** A unit of the file's own (`unitId`); the admin is placed in it. */
  unit?: boolean;
  /** An admin of this role: the caller the write helpers default to. */
  admin?: RoleName;
  /** A plain User: the caller the read helpers default to (without it, the admin). */
  reader?: boolean;
  /** The first designation and rank with their names (`contactBody` needs the designation). */
  references?: boolean;
}

/**
 * Registers a beforeAll that makes what `needs` asks for, and returns it with request helpers
 * over the file's app. The data (`admin`, `reader`, `unitId`, `designation`, `rank`) are getters:
 * read them in a test or hook, never at load time. The helpers are plain functions and may be
 * destructured. Writes go as the admin and reads as the reader (else the admin), unless a caller
 * is given as the last argument.
 */
export function contactsFixture(ctx: TestContext, needs: ContactsNeeds = {}) {
  const made: { unitId?: number; admin?: TestUser; reader?: TestUser; designation?: Reference; rank?: Reference } = {};
  beforeAll(async () => {
    if (needs.unit) made.unitId = (await createUnit(ctx)).id;
    if (needs.admin) made.admin = await createUser(ctx, { role: needs.admin, unit_id: made.unitId });
    if (needs.reader) made.reader = await createUser(ctx);
    if (needs.references) {
      made.designation = await firstReference(ctx, 'designations');
      made.rank = await firstReference(ctx, 'ranks');
    }
  });

  function need<K extends keyof typeof made>(key: K): NonNullable<(typeof made)[K]> {
    const value = made[key];
    if (value === undefined) throw new Error(`contactsFixture: no ${key} here (ask for it in the needs, and read it in a test or hook)`);
    return value as NonNullable<(typeof made)[K]>;
  }
  const writer = () => need('admin');
  const readerOrWriter = () => made.reader ?? need('admin');

  const api = () => request(ctx.app);
  const create = (body: unknown, caller: TestUser = writer()) => api().post('/api/contacts').set(bearer(caller)).send(body as object);
  const row = (id: number) => userRow(ctx, id);

  return {
    get admin(): TestUser {
      return need('admin');
    },
    get reader(): TestUser {
      return need('reader');
    },
    get unitId(): number {
      return need('unitId');
    },
    get designation(): Reference {
      return need('designation');
    },
    get rank(): Reference {
      return need('rank');
    },

    api,
    /** The raw users row of a contact. */
    row,
    /** The parent id of a contact as stored, a number or null. */
    parentOf: async (id: number): Promise<number | null> => {
      const p = (await row(id)).parent_id;
      return p === null ? null : Number(p);
    },
    login: (email: string, password: string) => login(ctx, { email, password }),

    /** A valid create body for `unitId` with the fixture's designation; `extra` adds or overrides fields. */
    contactBody: (unitId: number, extra: Record<string, unknown> = {}): ContactBody => {
      const tag = unique('ct').toLowerCase();
      return {
        name: `Contact ${tag}`,
        service_no: tag.slice(0, 50),
        unit_id: unitId,
        designation_id: need('designation').id,
        phone: '01711111111',
        email: `${tag}@example.test`,
        ...extra,
      };
    },
    create,
    /** Creates through the API, expects 201 and returns the contact. */
    createOk: async (body: Record<string, unknown>) => {
      const res = await create(body);
      expect(res.status).toBe(201);
      return res.body.data.contact as Record<string, unknown> & { id: number };
    },
    update: (id: number, body: unknown, caller: TestUser = writer()) =>
      api().put(`/api/contacts/${id}`).set(bearer(caller)).send(body as object),
    remove: (id: number, caller: TestUser = writer()) => api().delete(`/api/contacts/${id}`).set(bearer(caller)),
    move: (id: number, parent_id: unknown, caller: TestUser = writer()) =>
      api().put(`/api/contacts/${id}/move`).set(bearer(caller)).send({ parent_id }),
    bulkDelete: (contactIds: unknown[], caller: TestUser = writer()) =>
      api().post('/api/contacts/bulk-delete').set(bearer(caller)).send({ contactIds }),
    bulkMove: (contactIds: unknown[], parent_id: number | null, caller: TestUser = writer()) =>
      api().post('/api/contacts/bulk-move').set(bearer(caller)).send({ contactIds, parent_id }),
    get: (id: number, caller: TestUser = readerOrWriter()) => api().get(`/api/contacts/${id}`).set(bearer(caller)),
    list: (query: Record<string, unknown> | string, caller: TestUser = readerOrWriter()) =>
      api().get('/api/contacts').query(query).set(bearer(caller)),
    search: (query: Record<string, unknown> | string, caller: TestUser = readerOrWriter()) =>
      api().get('/api/contacts/search').query(query).set(bearer(caller)),
  };
}

async function firstReference(ctx: TestContext, table: 'designations' | 'ranks'): Promise<Reference> {
  const found = await ctx.db(table).orderBy('id').first('id', 'name');
  return { id: Number(found.id), name: found.name };
}

/** The failing fields of a 400 `Validation failed`, after checking the envelope and each entry's shape. */
export function failingFields(res: request.Response): string[] {
  expect({ status: res.status, message: res.body.message }).toEqual({ status: 400, message: 'Validation failed' });
  expect(res.body.status).toBe('error');
  for (const entry of res.body.errors) {
    expect(Object.keys(entry).sort()).toEqual(['field', 'message']);
    expect(typeof entry.message).toBe('string');
    expect(entry.message.length).toBeGreaterThan(0);
  }
  return (res.body.errors as Array<{ field: string }>).map((e) => e.field).sort();
}

/** A 400 whose message is `message`, given again as the one error entry, on `field`. */
export function expectRefusal(res: request.Response, field: string, message: string): void {
  expect(res.status).toBe(400);
  expect(res.body).toEqual({ status: 'error', message, errors: [{ field, message }] });
}

/** The six counters of a listing's statistics, from the totals they follow from. */
/** A suite's settings as its title names them (SEARCH_INDEX=memory, SEARCH_THREADS=1, ...). */
export const settingsOf = (env: Record<string, string>) => Object.entries(env).filter(([key]) => key.startsWith('SEARCH_')).map(([key, value]) => `${key}=${value}`).join(', ');

export const statistics = (total: number, roots: number, superAdmins: number, admins: number) => ({
  total_contacts: total,
  root_contacts: roots,
  child_contacts: total - roots,
  super_admins: superAdmins,
  admins,
  regular_users: total - superAdmins - admins,
});

type NamedNode = { name: string; children: unknown[] };

/** A tree of contacts as nested [name, children] pairs, to compare its shape at a glance. */
export const nameTree = (nodes: NamedNode[]): unknown => nodes.map((n) => [n.name, nameTree(n.children as NamedNode[])]);

/**
 * A unit of its own:
 *   Alpha (Super_admin, D1) -> Bravo (Admin, D1) -> Charlie (User, D2)
 *                           -> Delta (User, no department)
 *   Echo (User, D2)
 *   Foxtrot (User, inactive)
 * and a second unit holding Golf, so the unit filter has something to leave out.
 */
export async function sampleDirectory(ctx: TestContext) {
  const unit = await createUnit(ctx);
  const d1 = await createDepartment(ctx, unit.id);
  const d2 = await createDepartment(ctx, unit.id);
  const phone = `0${String(Date.now() % 1e9)}${Math.floor(Math.random() * 100)}`;
  const alpha = await createUser(ctx, { unit_id: unit.id, name: 'Alpha', role: 'Super_admin', department_id: d1.id });
  const bravo = await createUser(ctx, { unit_id: unit.id, name: 'Bravo', role: 'Admin', department_id: d1.id, parent_id: alpha.id });
  const charlie = await createUser(ctx, { unit_id: unit.id, name: 'Charlie', department_id: d2.id, parent_id: bravo.id, phone });
  const delta = await createUser(ctx, { unit_id: unit.id, name: 'Delta', parent_id: alpha.id });
  const echo = await createUser(ctx, { unit_id: unit.id, name: 'Echo', department_id: d2.id });
  const foxtrot = await createUser(ctx, { unit_id: unit.id, name: 'Foxtrot', is_active: false });
  const other = await createUnit(ctx);
  const golf = await createUser(ctx, { unit_id: other.id, name: 'Golf' });
  return { unit, other, d1, d2, alpha, bravo, charlie, delta, echo, foxtrot, golf, phone };
}

export type SampleDirectory = Awaited<ReturnType<typeof sampleDirectory>>;

/**
 * Inserts `count` contacts of a unit straight into the database, in one transaction under the
 * directory lock (far faster than the API), as chains `depth` deep: each contact the child of the
 * one before, a new root every `depth` contacts. `fields(i)` gives the i-th contact's own fields.
 * Returns the ids in insertion order.
 */
export async function insertChains(
  ctx: TestContext,
  { unitId, count, depth, fields }: { unitId: number; count: number; depth: number; fields: (i: number) => Pick<ContactInsert, 'name' | 'email' | 'service_no' | 'department_id'> },
): Promise<number[]> {
  const designationId = await anyDesignationId(ctx);
  const ids: number[] = [];
  await changeDirectory(ctx.db, async (trx) => {
    let parent: number | null = null;
    for (let i = 0; i < count; i++) {
      if (i % depth === 0) parent = null;
      parent = await insertContact(trx, { ...fields(i), phone: '01700000000', unit_id: unitId, designation_id: designationId, parent_id: parent });
      ids.push(parent);
    }
  });
  return ids;
}

/**
 * A walk's answer as plain arrays: one posted from a thread is made outside this test file's
 * realm (jest runs it in a VM context), and toEqual tells such arrays apart by their realm.
 */
export const plainWalk = (answer: unknown) => JSON.parse(JSON.stringify(answer, (_key, value: unknown) => (ArrayBuffer.isView(value) ? Array.from(value as Int32Array) : value)));

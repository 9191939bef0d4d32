import request from 'supertest';
import { setupTestContext } from '../helpers/context';
import { bearer, createUnit, unique } from '../helpers/factory';
import { createOrgWithMembers } from '../security/security-support';
import { entriesFor, lastAuditId } from './audit-support';
import { auditCallers, entryOf, traced, type Caller } from './traced-support';

const ctx = setupTestContext();
const callers = auditCallers(ctx);

type Fields = Record<string, unknown>;

/** One kind of reference record: what a create sends, and one update that changes a single field. */
interface Kind {
  plural: string;
  singular: string;
  fields(): Promise<Fields>;
  /** the body of an update that changes `field` and resends another field unchanged */
  update(record: Fields): { body: Fields; field: string };
}

const KINDS: Kind[] = [
  {
    plural: 'units',
    singular: 'unit',
    fields: async () => ({ name: unique('Unit '), code: unique('U').slice(0, 30), parent_id: (await createUnit(ctx)).id, description: 'audited' }),
    update: (r) => ({ body: { name: unique('Unit '), code: r.code }, field: 'name' }),
  },
  {
    plural: 'departments',
    singular: 'department',
    fields: async () => ({ unit_id: (await createUnit(ctx)).id, name: unique('Dept '), code: unique('D').slice(0, 30) }),
    update: (r) => ({ body: { code: unique('D').slice(0, 30), name: r.name }, field: 'code' }),
  },
  {
    plural: 'designations',
    singular: 'designation',
    fields: async () => ({ name: unique('Designation '), code: unique('G').slice(0, 30) }),
    update: (r) => ({ body: { name: unique('Designation '), code: r.code }, field: 'name' }),
  },
  {
    plural: 'ranks',
    singular: 'rank',
    fields: async () => ({ name: unique('Rank '), code: unique('R').slice(0, 30), level: 7 }),
    update: (r) => ({ body: { level: 9, name: r.name }, field: 'level' }),
  },
];

const created = (fields: Fields) => Object.fromEntries(Object.entries(fields).map(([f, v]) => [f, [null, v]]));
const deleted = (fields: Fields) => Object.fromEntries(Object.entries(fields).map(([f, v]) => [f, [v, null]]));

/** A record made through the API by `as`; its id. */
async function createThrough(as: Caller, plural: string, singular: string, fields: Fields): Promise<number> {
  const { res } = await traced(ctx, as, 'post', `/api/${plural}`, fields);
  expect(res.status).toBe(201);
  return res.body.data[singular].id as number;
}

describe.each(KINDS)('audit of $plural', (kind) => {
  const target = (id: number) => ({ type: kind.singular, id });

  test(`a create leaves one ${kind.singular}.create entry with every sent field as [null, value], filed under the Admin's organization`, async () => {
    const fields = await kind.fields();
    const since = await lastAuditId(ctx);
    const call = await traced(ctx, callers.admin, 'post', `/api/${kind.plural}`, fields);
    expect(call.res.status).toBe(201);
    const id = call.res.body.data[kind.singular].id as number;
    expect(await entriesFor(ctx, callers.reader, target(id), since)).toEqual([
      entryOf(call, { action: `${kind.singular}.create`, target: target(id), actor: callers.admin, organization_id: callers.admin.organization_id, changes: created(fields) }),
    ]);
  });

  test(`an update leaves one ${kind.singular}.update entry with only the field that changed`, async () => {
    const fields = await kind.fields();
    const id = await createThrough(callers.admin, kind.plural, kind.singular, fields);
    const { body, field } = kind.update(fields);
    const since = await lastAuditId(ctx);
    const call = await traced(ctx, callers.admin, 'put', `/api/${kind.plural}/${id}`, body);
    expect(call.res.status).toBe(200);
    expect(await entriesFor(ctx, callers.reader, target(id), since)).toEqual([
      entryOf(call, {
        action: `${kind.singular}.update`, target: target(id), actor: callers.admin, organization_id: callers.admin.organization_id,
        changes: { [field]: [fields[field], body[field]] },
      }),
    ]);
  });

  test(`an update that changes nothing leaves no ${kind.singular} entry`, async () => {
    const fields = await kind.fields();
    const id = await createThrough(callers.admin, kind.plural, kind.singular, fields);
    const since = await lastAuditId(ctx);
    const { res } = await traced(ctx, callers.admin, 'put', `/api/${kind.plural}/${id}`, fields);
    expect(res.status).toBe(200);
    expect(await entriesFor(ctx, callers.reader, target(id), since)).toEqual([]);
  });

  test(`a delete leaves one ${kind.singular}.delete entry with every field of the record as [value, null]`, async () => {
    const fields = await kind.fields();
    const id = await createThrough(callers.admin, kind.plural, kind.singular, fields);
    const since = await lastAuditId(ctx);
    const call = await traced(ctx, callers.admin, 'delete', `/api/${kind.plural}/${id}`);
    expect(call.res.status).toBe(200);
    expect(await entriesFor(ctx, callers.reader, target(id), since)).toEqual([
      entryOf(call, { action: `${kind.singular}.delete`, target: target(id), actor: callers.admin, organization_id: callers.admin.organization_id, changes: deleted(fields) }),
    ]);
  });
});

describe('audit of organizations', () => {
  test('create, update and delete by the Super_admin each leave one entry filed under the organization itself', async () => {
    const fields = { name: unique('Audited Org '), code: unique('AO').slice(0, 30) };
    const since = await lastAuditId(ctx);
    const create = await traced(ctx, callers.reader, 'post', '/api/organizations', fields);
    expect(create.res.status).toBe(201);
    const id = create.res.body.data.organization.id as number;
    // the Super_admin is of organization 1: the entries must not be filed there
    expect(id).not.toBe(callers.reader.organization_id);
    const target = { type: 'organization', id };

    const name = unique('Renamed Org ');
    const update = await traced(ctx, callers.reader, 'put', `/api/organizations/${id}`, { name, code: fields.code });
    expect(update.res.status).toBe(200);
    const remove = await traced(ctx, callers.reader, 'delete', `/api/organizations/${id}`);
    expect(remove.res.status).toBe(200);

    const entry = { target, actor: callers.reader, organization_id: id };
    expect(await entriesFor(ctx, callers.reader, target, since)).toEqual([
      entryOf(create, { ...entry, action: 'organization.create', changes: created(fields) }),
      entryOf(update, { ...entry, action: 'organization.update', changes: { name: [fields.name, name] } }),
      entryOf(remove, { ...entry, action: 'organization.delete', changes: deleted({ ...fields, name }) }),
    ]);
  });
});

describe('audit of roles', () => {
  const target = (id: number) => ({ type: 'role', id });
  const entry = (id: number) => ({ target: target(id), actor: callers.admin, organization_id: callers.admin.organization_id });

  async function newRole(permissions: string[]) {
    const fields = { name: unique('Role'), description: 'audited role', permissions };
    const call = await traced(ctx, callers.admin, 'post', '/api/roles', fields);
    expect(call.res.status).toBe(201);
    return { call, fields, id: call.res.body.data.role.id as number };
  }

  test('a create leaves one role.create entry with name, description and the granted permissions (sorted)', async () => {
    const since = await lastAuditId(ctx);
    const { call, fields, id } = await newRole(['contacts.read', 'contacts.create']);
    expect(await entriesFor(ctx, callers.reader, target(id), since)).toEqual([
      entryOf(call, {
        ...entry(id), action: 'role.create',
        changes: { name: [null, fields.name], description: [null, fields.description], permissions: [null, ['contacts.create', 'contacts.read']] },
      }),
    ]);
  });

  test('an update of the permissions leaves one role.update entry with the list before and after', async () => {
    const { id } = await newRole(['contacts.read', 'contacts.create']);
    const since = await lastAuditId(ctx);
    const call = await traced(ctx, callers.admin, 'put', `/api/roles/${id}`, { permissions: ['contacts.update', 'contacts.read'] });
    expect(call.res.status).toBe(200);
    expect(await entriesFor(ctx, callers.reader, target(id), since)).toEqual([
      entryOf(call, {
        ...entry(id), action: 'role.update',
        changes: { permissions: [['contacts.create', 'contacts.read'], ['contacts.read', 'contacts.update']] },
      }),
    ]);
  });

  test('a delete leaves one role.delete entry with name, description and permissions as [value, null]', async () => {
    const { fields, id } = await newRole(['contacts.read']);
    const since = await lastAuditId(ctx);
    const call = await traced(ctx, callers.admin, 'delete', `/api/roles/${id}`);
    expect(call.res.status).toBe(200);
    expect(await entriesFor(ctx, callers.reader, target(id), since)).toEqual([
      entryOf(call, { ...entry(id), action: 'role.delete', changes: deleted(fields) }),
    ]);
  });
});

describe("an Admin's entries are filed under the Admin's organization", () => {
  test('the Admin of a new organization sees the designation it created in GET /api/audit-events; an Admin of another does not', async () => {
    const [own, other] = [await createOrgWithMembers(ctx, callers.reader.token), await createOrgWithMembers(ctx, callers.reader.token)];
    const ownAdmin: Caller = { id: own.admin.id, token: own.admin.token, role: 'Admin', organization_id: own.id };
    const fields = { name: unique('Designation '), code: unique('G').slice(0, 30) };
    const since = await lastAuditId(ctx);
    const call = await traced(ctx, ownAdmin, 'post', '/api/designations', fields);
    expect(call.res.status).toBe(201);
    const target = { type: 'designation', id: call.res.body.data.designation.id as number };
    const expected = entryOf(call, { action: 'designation.create', target, actor: ownAdmin, organization_id: own.id, changes: created(fields) });

    expect(await entriesFor(ctx, ownAdmin, target, since)).toEqual([expected]);
    expect(await entriesFor(ctx, callers.reader, target, since)).toEqual([expected]);
    const seenByOther = await request(ctx.app)
      .get('/api/audit-events')
      .set(bearer(other.admin))
      .query({ target_type: target.type, target_id: target.id });
    expect(seenByOther.status).toBe(200);
    expect(seenByOther.body.data.events).toEqual([]);
  });
});

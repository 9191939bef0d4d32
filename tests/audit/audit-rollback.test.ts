import request from 'supertest';
import { setupTestContext } from '../helpers/context';
import { bearer, createDepartment, unique } from '../helpers/factory';
import { MISSING_ID } from '../locations/helpers';
import { entriesFor, lastAuditId } from './audit-support';
import { auditCallers, entriesMentioning, traced } from './traced-support';

/**
 * A change that is refused leaves no entry: the entry is written in the change's transaction,
 * so it exists exactly when the change committed.
 */
const ctx = setupTestContext();
const callers = auditCallers(ctx);

async function newUnit(name = unique('Unit ')): Promise<number> {
  const { res } = await traced(ctx, callers.admin, 'post', '/api/units', { name, code: unique('U').slice(0, 30) });
  expect(res.status).toBe(201);
  return res.body.data.unit.id as number;
}

describe('refused changes of reference data leave no entry', () => {
  test('a unit create refused as a duplicate name (409) leaves no unit.create entry; only the first create has one', async () => {
    const name = unique('Unit ');
    const since = await lastAuditId(ctx);
    const first = await newUnit(name);
    const { res } = await traced(ctx, callers.admin, 'post', '/api/units', { name, code: unique('U').slice(0, 30) });
    expect({ status: res.status, message: res.body.message }).toEqual({ status: 409, message: 'A unit with this name already exists' });
    // the query finds the first create, so finding nothing else means nothing else was written
    expect(await entriesMentioning(ctx, 'unit.create', name, since)).toEqual([{ id: expect.any(Number), target_id: first }]);
  });

  test('a unit rename refused as a duplicate name (409) leaves no entry about the unit', async () => {
    const taken = unique('Unit ');
    await newUnit(taken);
    const id = await newUnit();
    const since = await lastAuditId(ctx);
    const { res } = await traced(ctx, callers.admin, 'put', `/api/units/${id}`, { name: taken });
    expect({ status: res.status, message: res.body.message }).toEqual({ status: 409, message: 'A unit with this name already exists' });
    expect(await entriesFor(ctx, callers.reader, { type: 'unit', id }, since)).toEqual([]);
  });

  test('deleting a unit in use (409) leaves no entry about the unit, and the unit stays', async () => {
    const id = await newUnit();
    await createDepartment(ctx, id);
    const since = await lastAuditId(ctx);
    const { res } = await traced(ctx, callers.admin, 'delete', `/api/units/${id}`);
    expect({ status: res.status, message: res.body.message }).toEqual({ status: 409, message: 'Unit is in use and cannot be deleted' });
    expect(await entriesFor(ctx, callers.reader, { type: 'unit', id }, since)).toEqual([]);
    expect(await ctx.db('units').where({ id }).first('id')).toBeDefined();
  });

  test('a role update by an Admin granting a permission the Admin lacks (403) leaves no entry, and the rename sent with it is undone', async () => {
    const name = unique('Role');
    const createdRole = await traced(ctx, callers.admin, 'post', '/api/roles', { name, permissions: ['contacts.read'] });
    expect(createdRole.res.status).toBe(201);
    const id = createdRole.res.body.data.role.id as number;
    const since = await lastAuditId(ctx);
    const { res } = await traced(ctx, callers.admin, 'put', `/api/roles/${id}`, { name: unique('Role'), permissions: ['contacts.read', 'contacts.delete'] });
    expect(res.status).toBe(403);
    expect(await entriesFor(ctx, callers.reader, { type: 'role', id }, since)).toEqual([]);
    const role = await request(ctx.app).get(`/api/roles/${id}`).set(bearer(callers.admin));
    expect(role.body.data.role).toMatchObject({ name, permissions: ['contacts.read'] });
  });
});

describe('refused changes of locations leave no entry', () => {
  test('a division whose country does not exist (400) leaves no division.create entry; the same name under a real country has one', async () => {
    const name = unique('Division ');
    const since = await lastAuditId(ctx);
    const refused = await traced(ctx, callers.admin, 'post', '/api/locations/divisions', { country_id: MISSING_ID, name });
    expect(refused.res.status).toBe(400);
    expect(refused.res.body.errors).toEqual([{ field: 'country_id', message: 'Country not found' }]);
    expect(await entriesMentioning(ctx, 'division.create', name, since)).toEqual([]);

    // the same lookup does find the entry of a create that committed
    const country = await traced(ctx, callers.admin, 'post', '/api/locations/countries', { name: unique('Country ') });
    expect(country.res.status).toBe(201);
    const accepted = await traced(ctx, callers.admin, 'post', '/api/locations/divisions', { country_id: country.res.body.data.country.id, name });
    expect(accepted.res.status).toBe(201);
    expect(await entriesMentioning(ctx, 'division.create', name, since)).toEqual([{ id: expect.any(Number), target_id: accepted.res.body.data.division.id }]);
  });
});

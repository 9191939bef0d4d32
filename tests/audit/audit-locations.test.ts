import { setupTestContext } from '../helpers/context';
import { unique } from '../helpers/factory';
import { entriesFor, lastAuditId } from './audit-support';
import { auditCallers, entryOf, traced } from './traced-support';

const ctx = setupTestContext();
const callers = auditCallers(ctx);

type Fields = Record<string, unknown>;

/** A location made through the API by the Admin; its id. */
async function createLocation(group: string, singular: string, fields: Fields): Promise<number> {
  const { res } = await traced(ctx, callers.admin, 'post', `/api/locations/${group}`, fields);
  expect(res.status).toBe(201);
  return res.body.data[singular].id as number;
}

const LEVELS = [
  { group: 'countries', singular: 'country', parent: null },
  { group: 'divisions', singular: 'division', parent: { group: 'countries', key: 'country_id' } },
  { group: 'districts', singular: 'district', parent: { group: 'divisions', key: 'division_id' } },
  { group: 'thanas', singular: 'thana', parent: { group: 'districts', key: 'district_id' } },
] as const;

/** A fresh country > division > district chain of the test's own: the parent of each level by its key. */
async function parents(): Promise<Record<string, number>> {
  const ids: Record<string, number> = {};
  let above: Fields = {};
  for (const level of LEVELS.slice(0, 3)) {
    const id = await createLocation(level.group, level.singular, { ...above, name: unique(`${level.singular} `) });
    ids[level.singular] = id;
    above = { [`${level.singular}_id`]: id };
  }
  return { country_id: ids.country, division_id: ids.division, district_id: ids.district };
}

/** A division of the test's own, and what it was created with. */
async function newDivision() {
  const { country_id } = await parents();
  const fields = { country_id, name: unique('Division '), code: 'AD' };
  return { id: await createLocation('divisions', 'division', fields), fields };
}

describe.each(LEVELS)('audit of $group', ({ group, singular, parent }) => {
  test(`a create leaves one ${singular}.create entry: the sent fields and is_active as [null, value], filed under the Admin's organization`, async () => {
    const above = parent ? { [parent.key]: (await parents())[parent.key] } : {};
    const fields = { ...above, name: unique(`${singular} `), code: 'AU' };
    const since = await lastAuditId(ctx);
    const call = await traced(ctx, callers.admin, 'post', `/api/locations/${group}`, fields);
    expect(call.res.status).toBe(201);
    const target = { type: singular, id: call.res.body.data[singular].id as number };
    const changes = Object.fromEntries([...Object.entries(fields), ['is_active', true]].map(([f, v]) => [f, [null, v]]));
    expect(await entriesFor(ctx, callers.reader, target, since)).toEqual([
      entryOf(call, { action: `${singular}.create`, target, actor: callers.admin, organization_id: callers.admin.organization_id, changes }),
    ]);
  });
});

describe('audit of a division update and delete', () => {
  test('a rename leaves one division.update entry with only the name', async () => {
    const { id, fields } = await newDivision();
    const name = unique('Division ');
    const since = await lastAuditId(ctx);
    const call = await traced(ctx, callers.admin, 'put', `/api/locations/divisions/${id}`, { name, code: fields.code, country_id: fields.country_id });
    expect(call.res.status).toBe(200);
    const target = { type: 'division', id };
    expect(await entriesFor(ctx, callers.reader, target, since)).toEqual([
      entryOf(call, { action: 'division.update', target, actor: callers.admin, organization_id: callers.admin.organization_id, changes: { name: [fields.name, name] } }),
    ]);
  });

  test('a delete (soft) leaves one division.delete entry with is_active from active to false', async () => {
    const { id } = await newDivision();
    const since = await lastAuditId(ctx);
    const call = await traced(ctx, callers.admin, 'delete', `/api/locations/divisions/${id}`);
    expect(call.res.status).toBe(200);
    const target = { type: 'division', id };
    const entries = await entriesFor(ctx, callers.reader, target, since);
    expect(entries).toEqual([
      entryOf(call, { action: 'division.delete', target, actor: callers.admin, organization_id: callers.admin.organization_id, changes: { is_active: [expect.anything(), false] } }),
    ]);
    // stored as 1 (MySQL, SQLite) or true: active either way
    expect([1, true]).toContainEqual(entries[0].changes.is_active[0]);
  });

  test('deleting a division that is already inactive leaves no entry', async () => {
    const { id } = await newDivision();
    expect((await traced(ctx, callers.admin, 'delete', `/api/locations/divisions/${id}`)).res.status).toBe(200);
    const since = await lastAuditId(ctx);
    const again = await traced(ctx, callers.admin, 'delete', `/api/locations/divisions/${id}`);
    expect(again.res.status).toBe(200);
    expect(await entriesFor(ctx, callers.reader, { type: 'division', id }, since)).toEqual([]);
  });
});

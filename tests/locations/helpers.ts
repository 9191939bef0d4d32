import request from 'supertest';
import { setupTestContext, type TestContext } from '../helpers/context';
import { bearer, createUser, unique, type TestUser } from '../helpers/factory';

export const BASE = '/api/locations';
export const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
/** An id no row has (ids of the shared test database stay far below it). */
export const MISSING_ID = 2_000_000_000;

export type Group = 'countries' | 'divisions' | 'districts' | 'thanas';
export type Loc = Record<string, unknown> & { id: number; name: string };

export interface ChildLevel {
  group: Exclude<Group, 'countries'>;
  singular: string;
  label: string;
  parentGroup: Group;
  parentKey: string;
  parentLabel: string;
  parentSingular: string;
  duplicate: string;
}

export const CHILD_LEVELS: ChildLevel[] = [
  {
    group: 'divisions', singular: 'division', label: 'Division',
    parentGroup: 'countries', parentKey: 'country_id', parentLabel: 'Country', parentSingular: 'country',
    duplicate: 'A division with this name already exists in this country',
  },
  {
    group: 'districts', singular: 'district', label: 'District',
    parentGroup: 'divisions', parentKey: 'division_id', parentLabel: 'Division', parentSingular: 'division',
    duplicate: 'A district with this name already exists in this division',
  },
  {
    group: 'thanas', singular: 'thana', label: 'Thana',
    parentGroup: 'districts', parentKey: 'district_id', parentLabel: 'District', parentSingular: 'district',
    duplicate: 'A thana with this name already exists in this district',
  },
];

export const SINGULAR: Record<Group, string> = { countries: 'country', divisions: 'division', districts: 'district', thanas: 'thana' };

/** A name no other test uses, with a readable prefix. */
export const uniqueName = (prefix: string) => unique(`${prefix} `);

/** Creates one location through the API as `user` and returns the record (fails the test on any other status). */
export async function create(ctx: TestContext, user: TestUser, group: Group, body: Record<string, unknown>): Promise<Loc> {
  const res = await request(ctx.app).post(`${BASE}/${group}`).set(bearer(user)).send(body);
  if (res.status !== 201) throw new Error(`POST ${group} answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body.data[SINGULAR[group]];
}

export async function softDelete(ctx: TestContext, user: TestUser, group: Group, id: number): Promise<void> {
  const res = await request(ctx.app).delete(`${BASE}/${group}/${id}`).set(bearer(user));
  if (res.status !== 200) throw new Error(`DELETE ${group}/${id} answered ${res.status}: ${JSON.stringify(res.body)}`);
}

/** A fresh country > division > district > thana chain of the test's own. */
export async function createChain(ctx: TestContext, admin: TestUser) {
  const country = await create(ctx, admin, 'countries', { name: uniqueName('Country'), code: 'ZZ' });
  const division = await create(ctx, admin, 'divisions', { country_id: country.id, name: uniqueName('Division') });
  const district = await create(ctx, admin, 'districts', { division_id: division.id, name: uniqueName('District') });
  const thana = await create(ctx, admin, 'thanas', { district_id: district.id, name: uniqueName('Thana') });
  return { countries: country, divisions: division, districts: district, thanas: thana };
}

/** A new, childless parent row for `level` (with its own ancestors), so a test owns everything under it. */
export async function createParent(ctx: TestContext, admin: TestUser, level: ChildLevel): Promise<Loc> {
  let parent = await create(ctx, admin, 'countries', { name: uniqueName('Country') });
  for (const above of CHILD_LEVELS) {
    if (above.group === level.group) break;
    parent = await create(ctx, admin, above.group, { [above.parentKey]: parent.id, name: uniqueName(above.label) });
  }
  return parent;
}

export interface LocationsContext extends TestContext {
  admin: TestUser;
  superAdmin: TestUser;
  user: TestUser;
}

/** The app and database of the file (setupTestContext) with one signed-in user per role. */
export function setupLocationsContext(): LocationsContext {
  const ctx = setupTestContext() as LocationsContext;
  beforeAll(async () => {
    ctx.admin = await createUser(ctx, { role: 'Admin' });
    ctx.superAdmin = await createUser(ctx, { role: 'Super_admin' });
    ctx.user = await createUser(ctx, { role: 'User' });
  });
  return ctx;
}

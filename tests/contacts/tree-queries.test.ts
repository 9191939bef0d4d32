import request from 'supertest';
import { setupOwnTestContext } from '../helpers/context';
import { bearer, createDepartment, createUnit, createUser, unique, type TestUser } from '../helpers/factory';
import { insertChains } from './contacts-support';

// A database of its own: a read over order keys runs again when another writer's change
// commits while it runs (one-version.ts), and on the shared MySQL database the other files write
const ctx = setupOwnTestContext('treequeries');

/** Runs a request and returns how many queries the app sent to the database for it. */
async function queriesOf(run: () => Promise<request.Response>): Promise<number> {
  let count = 0;
  const listener = () => count++;
  ctx.db.on('query', listener);
  try {
    const res = await run();
    expect(res.status).toBe(200);
  } finally {
    ctx.db.removeListener('query', listener);
  }
  return count;
}

/** Adds `count` contacts to the unit as a forest of chains `depth` deep. */
async function grow(unitId: number, departmentId: number, count: number, depth: number) {
  const tag = unique('q');
  await insertChains(ctx, {
    unitId,
    count,
    depth,
    fields: (i) => ({
      name: `Person ${tag} ${i}`,
      email: `${tag}-${i}@queries.test`,
      service_no: `${tag}-${i}`,
      department_id: i % 2 ? departmentId : null,
    }),
  });
}

describe('each listing costs a constant number of queries, whatever the size of the tree', () => {
  let admin: TestUser;
  let unitId: number;
  let departmentId: number;
  let rootId: number;

  beforeAll(async () => {
    admin = await createUser(ctx, { role: 'Super_admin' });
    unitId = (await createUnit(ctx)).id;
    departmentId = (await createDepartment(ctx, unitId)).id;
    rootId = (await createUser(ctx, { unit_id: unitId, name: 'Root of all' })).id;
    // the units and departments are counted once per reference version, which a write of
    // contacts does not change: counted here, as any earlier call would have
    expect((await request(ctx.app).get('/api/contacts/statistics').set(bearer(admin))).status).toBe(200);
  });

  const get = (path: string) => () => request(ctx.app).get(path).set(bearer(admin));
  const endpoints = () => ({
    'list tree': get(`/api/contacts?unit_id=${unitId}`),
    'list flat deep page': get(`/api/contacts?unit_id=${unitId}&format=flat&limit=5&page=3`),
    'list hierarchical': get(`/api/contacts?unit_id=${unitId}&format=hierarchical`),
    // a page of 5, so that a next page follows at both sizes: a search's next cursor reads the
    // page's last order key, one query that a last page does not make
    'list search': get(`/api/contacts?unit_id=${unitId}&search=person&format=hierarchical&limit=5`),
    'list subtree': get(`/api/contacts?parent_id=${rootId}`),
    'list department': get(`/api/contacts?department_id=${departmentId}&format=flat`),
    'unit tree': get(`/api/contacts/unit/${unitId}`),
    'unit tree hierarchical': get(`/api/contacts/unit/${unitId}?format=hierarchical`),
    'unit tree search': get(`/api/contacts/unit/${unitId}?search=person`),
    children: get(`/api/contacts/${rootId}/children`),
    search: get(`/api/contacts/search?q=person&unit_id=${unitId}`),
    statistics: get('/api/contacts/statistics'),
    hierarchy: get('/api/contacts/organizational-hierarchy'),
  });

  async function measure(): Promise<Record<string, number>> {
    const out: Record<string, number> = {};
    for (const [name, run] of Object.entries(endpoints())) {
      // a write first, so every measurement is the first read of a changed directory
      await grow(unitId, departmentId, 1, 1);
      out[name] = await queriesOf(run);
    }
    return out;
  }

  test('the same counts for 20 contacts, 5 deep, and 400 contacts, 40 deep', async () => {
    await grow(unitId, departmentId, 20, 5);
    const small = await measure();
    await grow(unitId, departmentId, 380, 40);
    const large = await measure();
    expect(large).toEqual(small);
    // and they are small: authentication plus a handful
    for (const count of Object.values(large)) expect(count).toBeLessThanOrEqual(7);
  }, 120_000);
});

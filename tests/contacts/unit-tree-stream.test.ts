import request from 'supertest';
import type { Express } from 'express';
import { createApp } from '../../src/app';
import { nestedOrder } from '../../src/modules/contacts/read/unit-tree-stream';
import { isMysql } from '../helpers/config';
import { quietLogger, setupOwnTestContext } from '../helpers/context';
import { bearer, createDepartment, createUnit, createUser, type TestUser } from '../helpers/factory';
import { serviceBehindProxy } from '../helpers/freezable-proxy';

/**
 * A large unit's tree is streamed (read/unit-tree-stream.ts; docs/api.md, "The tree of a unit"):
 * the same bytes as the tree built whole, in every format and with every filter, the same ETag
 * and 304, gzip when asked. Here UNIT_TREE_STREAM_FROM=0 streams every tree of a unit that has
 * contacts; a second service over the same database, with the threshold out of reach, builds
 * them whole, as every tree was built before.
 */
// a database of its own: on MySQL another file's writes would move the versions (and the ETag) between two reads
const ctx = setupOwnTestContext('unit_tree_stream', { UNIT_TREE_STREAM_FROM: '0' });
let built: Express;
let admin: TestUser;
let unitId: number;
let departmentId: number;

beforeAll(async () => {
  const config = { ...ctx.config, lists: { ...ctx.config.lists, unitTreeStreamFrom: 1_000_000_000 } };
  built = createApp({ db: ctx.db, config, logger: quietLogger });
  admin = await createUser(ctx, { role: 'Super_admin' });
  unitId = (await createUnit(ctx)).id;
  departmentId = (await createDepartment(ctx, unitId)).id;
  const add = (name: string, fields: Parameters<typeof createUser>[1] = {}) => createUser(ctx, { unit_id: unitId, name, ...fields });
  // R > (A: an Admin > (a1, a2 > a21), b, C: in the department > c1); S > s1 (inactive) ; T
  // role_filter=user leaves A out while its children stay: they stand at the top level, behind
  // R's subtree (b comes after them in pre-order, and still nests under R)
  const r = await add('R root');
  const a = await add('R A', { parent_id: r.id, role: 'Admin' });
  await add('R A a1', { parent_id: a.id });
  const a2 = await add('R A a2', { parent_id: a.id, department_id: departmentId });
  await add('R A a2 x', { parent_id: a2.id });
  await add('R b', { parent_id: r.id });
  const c = await add('R C', { parent_id: r.id, department_id: departmentId });
  await add('R C c1', { parent_id: c.id, department_id: departmentId });
  const s = await add('S root', { role: 'Admin' });
  await add('S s1', { parent_id: s.id, is_active: false });
  await add('T root', { department_id: departmentId });
});

const read = (app: Express, query: string, headers: Record<string, string> = {}) =>
  request(app).get(`/api/contacts/unit/${unitId}${query}`).set(bearer(admin)).set(headers);

describe('the streamed tree is the built one, byte for byte', () => {
  const queries = [
    '',
    '?format=flat',
    '?format=hierarchical',
    '?include_inactive=true',
    '?role_filter=user',
    '?role_filter=user&format=hierarchical',
    '?role_filter=admin&include_inactive=true',
    `?department_id=DEPT`,
    '?format=flat&role_filter=super_admin',
    '?search=root',
  ];
  test.each(queries)('GET /api/contacts/unit/:unitId%s', async (query) => {
    const q = query.replace('DEPT', String(departmentId));
    const streamed = await read(ctx.app, q);
    const whole = await read(built, q);
    expect(whole.status).toBe(200);
    expect(streamed.status).toBe(200);
    expect(streamed.text).toBe(whole.text);
    expect(streamed.headers.etag).toBe(whole.headers.etag);
    expect(streamed.headers['content-type']).toBe(whole.headers['content-type']);
    // streamed: no length known beforehand (a search is built whole, as it was)
    if (!query.includes('search')) expect(streamed.headers['transfer-encoding']).toBe('chunked');
  });

  test('the orphans of a filter stand at the top level, behind the subtree they were inside, as nest() puts them', async () => {
    const res = await read(ctx.app, '?role_filter=user');
    const tops = res.body.data.contacts.map((n: { name: string }) => n.name);
    expect(tops).toEqual(['R root', 'R A a1', 'R A a2', 'T root']);
    expect(res.body.data.contacts[0].children.map((n: { name: string }) => n.name)).toEqual(['R b', 'R C']);
    expect(res.body.data.statistics).toMatchObject({ total_contacts: 8, root_contacts: 2, admins: 0 });
  });

  test('gzip when the client accepts it: the same JSON once inflated', async () => {
    const streamed = await read(ctx.app, '?format=hierarchical', { 'accept-encoding': 'gzip' });
    expect(streamed.headers['content-encoding']).toBe('gzip');
    expect(streamed.headers.vary).toMatch(/Accept-Encoding/i);
    const whole = await read(built, '?format=hierarchical', { 'accept-encoding': 'identity' });
    expect(streamed.text).toBe(whole.text);
  });

  test('304 to the ETag the streamed answer gave, before anything is read', async () => {
    const first = await read(ctx.app, '');
    const again = await read(ctx.app, '', { 'if-none-match': first.headers.etag });
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
  });

  test('a unit that does not exist, or holds nobody, is answered as before (404; an empty tree)', async () => {
    const missing = await read(ctx.app, '').then(() => request(ctx.app).get('/api/contacts/unit/99999999').set(bearer(admin)));
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ status: 'error', message: 'Unit not found' });
    const empty = (await createUnit(ctx)).id;
    const res = await request(ctx.app).get(`/api/contacts/unit/${empty}`).set(bearer(admin));
    expect(res.status).toBe(200);
    expect(res.body.data.contacts).toEqual([]);
    expect(res.headers['content-length']).toBeDefined();
  });
});

describe('nestedOrder', () => {
  test('is the pre-order when every parent is in the set, with depths', () => {
    const { order, depth } = nestedOrder(Int32Array.from([1, 2, 3, 4]), Int32Array.from([0, 1, 2, 1]));
    expect([...order]).toEqual([0, 1, 2, 3]);
    expect([...depth]).toEqual([0, 1, 2, 1]);
  });

  test('moves an orphan inside an open subtree behind it, and its own subtree with it', () => {
    // 1 > (2 > 3), 9 (parent 8 left out) > 10, then 4 a child of 1 again
    const ids = Int32Array.from([1, 2, 3, 9, 10, 4]);
    const parents = Int32Array.from([0, 1, 2, 8, 9, 1]);
    const { order, depth } = nestedOrder(ids, parents);
    expect([...order].map((i) => ids[i])).toEqual([1, 2, 3, 4, 9, 10]);
    expect([...depth]).toEqual([0, 1, 2, 1, 0, 1]);
  });
});

(isMysql() ? describe : describe.skip)('an error after the first byte', () => {
  test('cuts the connection: the client gets a 200 whose body stops short, never a whole answer', async () => {
    // the service reaches MySQL through a proxy that stops answering when the contacts are read
    const { proxy, app, close } = await serviceBehindProxy(ctx, { DB_QUERY_TIMEOUT_MS: '500', UNIT_TREE_STREAM_FROM: '0' });
    try {
      expect((await read(app, '')).status).toBe(200);
      proxy.freezeAt((sent) => sent.sql.includes('`u`.`depth`'));
      const res = await read(app, '?format=flat').buffer(true).then(
        (r) => ({ status: r.status, text: r.text, error: null as string | null }),
        (err: Error & { code?: string }) => ({ status: 0, text: '', error: err.code ?? err.message }),
      );
      // the head left before the contacts were read: the status is 200, the body never completes
      if (res.error === null) expect(() => JSON.parse(res.text)).toThrow();
      else expect(res.error).toMatch(/ECONNRESET|aborted|socket hang up/i);
    } finally {
      await close();
    }
  });
});

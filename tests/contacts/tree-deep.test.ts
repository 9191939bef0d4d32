import request from 'supertest';
import { setupTestContext } from '../helpers/context';
import { anyDesignationId, bearer, createUnit, createUser, unique, type TestUser } from '../helpers/factory';
import { treeProblems } from '../helpers/tree';
import { insertChains } from './contacts-support';

const ctx = setupTestContext();
const DEPTH = 1000;

interface Flat {
  id: number;
  name: string;
  level: number;
  parent_id: number | null;
  path?: string;
  ancestors?: number[];
  children?: Flat[];
}

describe('a chain of 1,000 nested contacts', () => {
  let admin: TestUser;
  let unitId: number;
  const chain: number[] = [];

  beforeAll(async () => {
    admin = await createUser(ctx, { role: 'Super_admin' });
    unitId = (await createUnit(ctx)).id;
    const tag = unique('deep');
    const ids = await insertChains(ctx, {
      unitId,
      count: DEPTH,
      depth: DEPTH,
      fields: (i) => ({ name: `Level ${String(i).padStart(4, '0')}`, email: `${tag}-${i}@deep.test`, service_no: `${tag}-${i}` }),
    });
    chain.push(...ids);
  }, 120_000);

  test('lists in every format with true levels, paths and ancestors', async () => {
    const flat = await request(ctx.app).get(`/api/contacts?unit_id=${unitId}&format=flat&limit=1000`).set(bearer(admin));
    expect(flat.status).toBe(200);
    expect(flat.body.data.contacts.map((c: Flat) => c.level)).toEqual([...Array(DEPTH).keys()]);

    const deepPage = await request(ctx.app)
      .get(`/api/contacts?unit_id=${unitId}&format=hierarchical&limit=10&page=100`)
      .set(bearer(admin));
    const last = deepPage.body.data.contacts[9];
    expect(last.id).toBe(chain[DEPTH - 1]);
    expect(last.level).toBe(DEPTH - 1);
    expect(last.ancestors).toEqual(chain.slice(0, DEPTH - 1));
    expect(last.path.split(' > ')).toHaveLength(DEPTH);

    const tree = await request(ctx.app).get(`/api/contacts/unit/${unitId}`).set(bearer(admin));
    expect(tree.status).toBe(200);
    let depth = 0;
    for (let node: Flat | undefined = tree.body.data.contacts[0]; node; node = node.children?.[0]) depth++;
    expect(depth).toBe(DEPTH);
  });

  test('moves the whole chain under another contact, every level one deeper', async () => {
    const holder = await createUser(ctx, { unit_id: unitId, name: 'Holder' });
    const res = await request(ctx.app).put(`/api/contacts/${chain[0]}/move`).set(bearer(admin)).send({ parent_id: holder.id });
    expect(res.status).toBe(200);
    const bottom = await ctx.db('users').where({ id: chain[DEPTH - 1] }).first('depth');
    expect(Number(bottom.depth)).toBe(DEPTH);
    // a move under its own bottom is a cycle, refused
    const cycle = await request(ctx.app).put(`/api/contacts/${chain[0]}/move`).set(bearer(admin)).send({ parent_id: chain[DEPTH - 1] });
    expect(cycle.status).toBe(400);
    expect(await treeProblems(ctx.db)).toEqual([]);
  });

  test('deleting the middle of the chain re-roots the rest', async () => {
    const middle = chain[DEPTH / 2];
    const res = await request(ctx.app).delete(`/api/contacts/${middle}`).set(bearer(admin));
    expect(res.status).toBe(200);
    const below = await ctx.db('users').where({ id: chain[DEPTH / 2 + 1] }).first('parent_id', 'depth');
    expect(below.parent_id).toBeNull();
    expect(Number(below.depth)).toBe(0);
    const bottom = await ctx.db('users').where({ id: chain[DEPTH - 1] }).first('depth');
    expect(Number(bottom.depth)).toBe(DEPTH - DEPTH / 2 - 2);
    expect(await treeProblems(ctx.db)).toEqual([]);
  });

  test('storage stays two numbers a contact: no column grows with the depth', async () => {
    const columns = await ctx.db('users').columnInfo();
    expect(Object.keys(columns)).toEqual(expect.arrayContaining(['tree_ord', 'depth']));
    expect(Object.keys(columns)).not.toEqual(expect.arrayContaining(['path']));
    const bottom = await ctx.db('users').where({ id: chain[DEPTH - 1] }).first();
    for (const value of Object.values(bottom)) {
      if (typeof value === 'string') expect(value.length).toBeLessThan(256);
    }
  });
});

describe('a gap used up by inserts at one spot', () => {
  test('is spread out again, keeping the order', async () => {
    const admin = await createUser(ctx, { role: 'Super_admin' });
    const unitId = (await createUnit(ctx)).id;
    const parent = await createUser(ctx, { unit_id: unitId, name: 'Parent' });
    await createUser(ctx, { unit_id: unitId, name: 'Zz after', parent_id: parent.id });
    const labelOf = async (id: number) => Number((await ctx.db('users').where({ id }).first('tree_ord')).tree_ord);
    const parentLabel = await labelOf(parent.id);
    // Each new child sorts first, between the parent and the previous first child, halving
    // that gap: forty of them use up a 2^20 gap and force a relabel of the neighbourhood.
    for (let i = 60; i > 20; i--) {
      const tag = unique('gap');
      const res = await request(ctx.app)
        .post('/api/contacts')
        .set(bearer(admin))
        .send({
          name: `Child ${String(i).padStart(3, '0')}`,
          email: `${tag}@gap.test`,
          service_no: tag,
          phone: '01700000000',
          unit_id: unitId,
          designation_id: await anyDesignationId(ctx),
          parent_id: parent.id,
        });
      expect(res.status).toBe(201);
    }
    const ords = (await ctx.db('users').where({ unit_id: unitId }).orderBy('tree_ord').select('name', 'tree_ord')).map((r) => r.name);
    expect(ords[0]).toBe('Parent');
    expect(ords[1]).toBe('Child 021');
    expect(ords[ords.length - 1]).toBe('Zz after');
    // the relabel spread the window around the gap, the parent's label with it
    expect(await labelOf(parent.id)).not.toBe(parentLabel);
    expect(await treeProblems(ctx.db)).toEqual([]);
  }, 60_000);
});

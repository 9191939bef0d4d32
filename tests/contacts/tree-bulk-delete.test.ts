import request from 'supertest';
import { setupTestContext } from '../helpers/context';
import { bearer, createUnit, createUser } from '../helpers/factory';
import { treeProblems } from '../helpers/tree';

const ctx = setupTestContext();

describe('POST /api/contacts/bulk-delete on nested contacts', () => {
  test('re-roots survivors whose subtrees lie inside one another, keeping the order keys exact', async () => {
    const admin = await createUser(ctx, { role: 'Super_admin' });
    const unitId = (await createUnit(ctx)).id;
    // x > a > y > b > c : deleting x and y leaves a (child of x) and b (child of y) to re-root,
    // and b's subtree lies inside a's
    const x = await createUser(ctx, { unit_id: unitId, name: 'X root' });
    const a = await createUser(ctx, { unit_id: unitId, name: 'A', parent_id: x.id });
    const y = await createUser(ctx, { unit_id: unitId, name: 'Y', parent_id: a.id });
    const b = await createUser(ctx, { unit_id: unitId, name: 'B', parent_id: y.id });
    const c = await createUser(ctx, { unit_id: unitId, name: 'C', parent_id: b.id });
    const res = await request(ctx.app).post('/api/contacts/bulk-delete').set(bearer(admin)).send({ contactIds: [x.id, y.id] });
    expect(res.status).toBe(200);
    expect(res.body.data.deletedCount).toBe(2);
    const parents = Object.fromEntries(
      (await ctx.db('users').whereIn('id', [a.id, b.id, c.id]).select('id', 'parent_id')).map((r) => [Number(r.id), r.parent_id]),
    );
    expect(parents).toEqual({ [a.id]: null, [b.id]: null, [c.id]: b.id });
    expect(await treeProblems(ctx.db)).toEqual([]);
  });
});

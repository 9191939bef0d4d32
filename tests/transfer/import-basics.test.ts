import { setupTestContext } from '../helpers/context';
import { treeProblems } from '../helpers/tree';
import { csv, HEADER, importCsv, personRow, tagOf, transferFixture } from './transfer-support';

const ctx = setupTestContext();
const f = transferFixture(ctx);

describe('POST /api/contacts/import: a file of contacts', () => {
  it('creates a whole tree given in any order (children before parents), with parents by service number', async () => {
    const [a, b, c] = [tagOf(), tagOf(), tagOf()];
    const res = await importCsv(ctx, f.admin, csv([HEADER, personRow(f, c, b), personRow(f, b, a), personRow(f, a)]));
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ created: 3, updated: 0, failed: 0, errors: [], errors_total: 0 });
    const rows = await ctx.db('users').whereIn('service_no', [a, b, c]).select('id', 'service_no', 'parent_id', 'depth');
    const id = (sn: string) => rows.find((r) => r.service_no === sn)!.id;
    const parentOf = (sn: string) => rows.find((r) => r.service_no === sn)!.parent_id;
    expect(parentOf(a)).toBeNull();
    expect(Number(parentOf(b))).toBe(Number(id(a)));
    expect(Number(parentOf(c))).toBe(Number(id(b)));
    expect(await treeProblems(ctx.db)).toEqual([]);
  });
});

import { changeDirectory } from '../../src/modules/contacts';
import { GROUP_SPACING, LARGE_GROUP } from '../../src/modules/contacts/data/tree/gaps';
import { sortNameOf } from '../../src/modules/contacts/data/tree/keys';
import { TreeOrder } from '../../src/modules/contacts/data/tree/order';
import { updateContact } from '../../src/modules/contacts/data/contact.writer';
import { findUserRow } from '../../src/modules/contacts/data/users.queries';
import { setupOwnTestContext } from '../helpers/context';
import { createUnit, createUser } from '../helpers/factory';
import { treeProblems } from '../helpers/tree';

/**
 * A large group of rows placed together in the order key (an import's new rows, a moved
 * subtree) gets room for more rows among them later (tree/gaps.ts, GROUP_SPACING). Packed as
 * tightly as their gap allowed, a million imported contacts sat 830 apart, under what a relabel
 * leaves, and the first move among them relabelled the whole directory.
 */
describe('rows placed together in a narrow gap', () => {
  // a database of its own: the tests set a label by hand a few thousand past a row's, and on
  // MySQL, where the test files share one, another file's contact could lie in between (its
  // order then broken by the test, not by the code; a CI run met it)
  const ctx = setupOwnTestContext('treegaps');
  const labelOf = async (id: number) => Number((await ctx.db('users').where({ id }).first('tree_ord')).tree_ord);

  test('a large group gets GROUP_SPACING each or more: the neighbours are spread first, and the order stays sound', async () => {
    const unit = await createUnit(ctx);
    const parent = await createUser(ctx, { unit_id: unit.id });
    const first = await createUser(ctx, { unit_id: unit.id, parent_id: parent.id, name: 'Aaaa Narrowgap' });
    const last = await createUser(ctx, { unit_id: unit.id, parent_id: parent.id, name: 'Zzzz Narrowgap' });
    const placed = await changeDirectory(ctx.db, async (trx) => {
      // the next sibling right after the first one: room for LARGE_GROUP rows 2 apart between
      // them, where they went before
      const start = Number((await trx('users').where({ id: first.id }).first('tree_ord')).tree_ord);
      await trx('users').where({ id: last.id }).update({ tree_ord: start + 2 * (LARGE_GROUP + 1) });
      const { tree_ord } = await new TreeOrder(trx).labelsForNew(parent.id, { length: 1, sortName: () => sortNameOf('Mmmm Narrowgap'), rows: () => LARGE_GROUP });
      return Array.from(tree_ord);
    });
    const [before, after] = [await labelOf(first.id), await labelOf(last.id)];
    expect(placed).toHaveLength(LARGE_GROUP);
    const gaps = [placed[0] - before, ...placed.slice(1).map((label, i) => label - placed[i]), after - placed[placed.length - 1]];
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(GROUP_SPACING);
    // the rows were not inserted; the spread neighbours keep the directory's order sound
    expect(await treeProblems(ctx.db)).toEqual([]);
  });

  test('a smaller group, one row here, still goes into any gap wide enough, with no relabel', async () => {
    const unit = await createUnit(ctx);
    const parent = await createUser(ctx, { unit_id: unit.id });
    const first = await createUser(ctx, { unit_id: unit.id, parent_id: parent.id, name: 'Aaaa Onerow' });
    const last = await createUser(ctx, { unit_id: unit.id, parent_id: parent.id, name: 'Zzzz Onerow' });
    const placed = await changeDirectory(ctx.db, async (trx) => {
      const start = Number((await trx('users').where({ id: first.id }).first('tree_ord')).tree_ord);
      await trx('users').where({ id: last.id }).update({ tree_ord: start + 10 });
      const { tree_ord } = await new TreeOrder(trx).labelsForNew(parent.id, { length: 1, sortName: () => sortNameOf('Mmmm Onerow'), rows: () => 1 });
      return { row: tree_ord[0], start };
    });
    expect(await labelOf(first.id)).toBe(placed.start);
    expect(await labelOf(last.id)).toBe(placed.start + 10);
    expect(placed.row).toBe(placed.start + 5);
  });

  /**
   * A row moved alone is not taken out of the order first (order.ts placeSubtrees): its old
   * label stays in the table while its new place is found. With three siblings packed one label
   * apart, each move below starts a relabel whose window holds that old label, or starts its gap
   * at it; the directory must stay sound and the row must land where its name and parent say.
   */
  test.each([
    ['renamed among its packed siblings', 'Nnnn Packed', 'same'],
    ['moved under its packed sibling before it (whose subtree ends at the moved row)', undefined, 'first'],
    ['moved under its packed sibling after it', undefined, 'last'],
  ] as const)('a leaf %s: the order stays sound', async (_case, rename, under) => {
    const unit = await createUnit(ctx);
    const parent = await createUser(ctx, { unit_id: unit.id });
    const first = await createUser(ctx, { unit_id: unit.id, parent_id: parent.id, name: 'Aaaa Packed' });
    const leaf = await createUser(ctx, { unit_id: unit.id, parent_id: parent.id, name: 'Mmmm Packed' });
    const last = await createUser(ctx, { unit_id: unit.id, parent_id: parent.id, name: 'Zzzz Packed' });
    const start = await labelOf(first.id);
    await ctx.db('users').where({ id: leaf.id }).update({ tree_ord: start + 1 });
    await ctx.db('users').where({ id: last.id }).update({ tree_ord: start + 2 });
    expect(await treeProblems(ctx.db)).toEqual([]);
    const newParent = under === 'first' ? first.id : under === 'last' ? last.id : parent.id;
    await changeDirectory(ctx.db, async (trx) => {
      const current = (await findUserRow(trx, leaf.id))!;
      await updateContact(trx, current, rename ? { name: rename } : { parent_id: newParent });
    });
    expect(await treeProblems(ctx.db)).toEqual([]);
    const order = (await ctx.db('users').whereIn('id', [parent.id, first.id, leaf.id, last.id]).orderBy('tree_ord').select('id')).map((r) => Number(r.id));
    // renamed 'Nnnn' it stays between its siblings; under the first it follows it as its child; under the last, after it
    expect(order).toEqual(under === 'last' ? [parent.id, first.id, last.id, leaf.id] : [parent.id, first.id, leaf.id, last.id]);
    const row = await ctx.db('users').where({ id: leaf.id }).first('parent_id', 'depth');
    const parentDepth = Number((await ctx.db('users').where({ id: newParent }).first('depth')).depth);
    expect([Number(row.parent_id), Number(row.depth)]).toEqual([newParent, parentDepth + 1]);
  });
});


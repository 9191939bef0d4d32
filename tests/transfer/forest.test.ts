import { changeDirectory } from '../../src/modules/contacts';
import { insertContactForest, type ForestContact } from '../../src/modules/contacts/data/forest.writer';
import type { Db } from '../../src/lib/db';
import { openOwnSeededDb } from '../helpers/context';
import { unique } from '../helpers/factory';
import { treeProblems } from '../helpers/tree';

/** A new contact of a forest in `unitId`, under a contact of the directory, another new one, or none. */
function newContact(unitId: number, designationId: number, name: string, parent: ForestContact['parent']): ForestContact {
  const tag = unique('FO').toLowerCase();
  return { name, email: `${tag}@forest.test`, service_no: tag, phone: '01700000000', unit_id: unitId, designation_id: designationId, parent };
}

const names = (db: Db, unitId: number) => db('users').where({ unit_id: unitId }).orderBy('tree_ord').pluck('name');

describe('insertContactForest: many new contacts placed in the tree at once', () => {
  // a directory of the test's own: the labels of every row are set by hand
  let own: Awaited<ReturnType<typeof openOwnSeededDb>>;
  beforeAll(async () => {
    own = await openOwnSeededDb('forest');
  });
  afterAll(() => own.done());

  it('places new subtrees among existing siblings in name order, children under their new parents', async () => {
    const { db } = own;
    const now = new Date();
    const [unitId] = await db('units').insert({ name: 'Forest unit', code: 'FOREST-1', created_at: now, updated_at: now });
    const designationId = Number((await db('designations').first('id')).id);
    const p = newContact(Number(unitId), designationId, 'p', null);
    const m = newContact(Number(unitId), designationId, 'm', { serviceNo: p.service_no });
    await changeDirectory(db, (trx) => insertContactForest(trx, [m, p]));
    const pId = Number((await db('users').where({ service_no: p.service_no }).first('id')).id);
    const rows = [
      newContact(Number(unitId), designationId, 'z', { id: pId }),
      newContact(Number(unitId), designationId, 'a', { id: pId }),
    ];
    rows.push(newContact(Number(unitId), designationId, 'a1', { serviceNo: rows[1].service_no }));
    await changeDirectory(db, (trx) => insertContactForest(trx, rows));
    expect(await names(db, Number(unitId))).toEqual(['p', 'a', 'a1', 'm', 'z']);
    expect(await treeProblems(db)).toEqual([]);
  });

  it('fills gaps too narrow for its rows by spreading their neighbours, new rows placed earlier in the same call included', async () => {
    const { db } = own;
    const now = new Date();
    const [unitId] = await db('units').insert({ name: 'Forest unit 2', code: 'FOREST-2', created_at: now, updated_at: now });
    const designationId = Number((await db('designations').first('id')).id);
    const root = newContact(Number(unitId), designationId, 'root', null);
    const siblings = ['a01', 'a02', 'a03', 'a04', 'a05', 'a06', 'a07', 'a08', 'a09', 'a10', 'b', 'd', 'f', 'g01', 'g02', 'g03', 'g04', 'g05', 'g06', 'g07', 'g08', 'g09', 'g10'];
    await changeDirectory(db, (trx) =>
      insertContactForest(trx, [root, ...siblings.map((name) => newContact(Number(unitId), designationId, name, { serviceNo: root.service_no }))]),
    );
    // every row of the directory 2,048 apart, but b, d and f on consecutive labels
    await changeDirectory(db, async (trx) => {
      const all = await trx('users').orderBy('tree_ord').select('id', 'name');
      let label = 0;
      for (const row of all) {
        label += ['d', 'f'].includes(row.name) ? 1 : 2048;
        await trx('users').where({ id: row.id }).update({ tree_ord: label });
      }
    });
    expect(await treeProblems(db)).toEqual([]);

    // c (3 rows) between b and d: the room made for it leaves under 2,000 between d and f, too
    // little for e's 2,001 rows, so e's window spreads c's new rows, not yet in the table, too
    const rootId = Number((await db('users').where({ service_no: root.service_no }).first('id')).id);
    const c = newContact(Number(unitId), designationId, 'c', { id: rootId });
    const e = newContact(Number(unitId), designationId, 'e', { id: rootId });
    const eChildren = Array.from({ length: 2000 }, (_, i) => newContact(Number(unitId), designationId, `e${String(i).padStart(4, '0')}`, { serviceNo: e.service_no }));
    const rows = [newContact(Number(unitId), designationId, 'c2', { serviceNo: c.service_no }), c, ...eChildren, e, newContact(Number(unitId), designationId, 'c1', { serviceNo: c.service_no })];
    const ids = await changeDirectory(db, (trx) => insertContactForest(trx, rows));
    expect(ids.size).toBe(rows.length);
    expect(await treeProblems(db)).toEqual([]);
    const expected = ['root', ...siblings.slice(0, 11), 'c', 'c1', 'c2', 'd', 'e', ...eChildren.map((x) => x.name), 'f', ...siblings.slice(13)];
    expect(await names(db, Number(unitId))).toEqual(expected);
  });
});

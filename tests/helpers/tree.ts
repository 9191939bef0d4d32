import type { Db } from '../../src/lib/db';
import type { Knex } from 'knex';
import { changeDirectory, checkDirectory, FINDINGS } from '../../src/modules/contacts';

/** The derived columns of the tree itself; `whole` adds the sort names and search grams. */
const TREE_FINDINGS = ['orphan', 'cycle', 'depth', 'order'] as const;

/**
 * Checks every invariant of the directory: the rules of its parent links (every parent exists
 * and is in the child's unit, an active contact's parent is active), read in one statement, and
 * the tree's derived columns against its rows, as `npm run directory:check` does (ORDER BY
 * tree_ord is the pre-order with siblings by (sort_name, id), depth is the level, no parent
 * chain loops). With `whole`, every derived column: sort names and search grams too. Some tests
 * change a name or take grams away by hand, to prove a read does not trust them; on MySQL the
 * test files share a database, so only a file with a database of its own checks the whole.
 * Returns the problems found.
 */
export async function treeProblems(db: Db, { whole = false } = {}): Promise<string[]> {
  const rows = (await db('users').select('id', 'parent_id', 'is_active', 'unit_id')).map((r) => ({
    id: Number(r.id),
    parent_id: r.parent_id === null ? null : Number(r.parent_id),
    is_active: Boolean(Number(r.is_active)),
    unit_id: Number(r.unit_id),
  }));
  const problems: string[] = [];
  const byId = new Map(rows.map((r) => [r.id, r]));
  for (const r of rows) {
    const parent = r.parent_id === null ? undefined : byId.get(r.parent_id);
    if (!parent) continue;
    if (parent.unit_id !== r.unit_id) problems.push(`${r.id}: parent ${parent.id} in another unit`);
    if (r.is_active && !parent.is_active) problems.push(`${r.id}: active under inactive ${parent.id}`);
  }
  const report = await checkDirectory(db);
  for (const kind of whole ? FINDINGS : TREE_FINDINGS) {
    if (report[kind].count > 0) problems.push(`${kind}: ${report[kind].count} wrong (${report[kind].ids.join(', ')})`);
  }
  return problems.slice(0, 20);
}

/**
 * Takes the directory lock and holds it until `release` is called (which resolves once the
 * holder has committed): through this process's queue of changes (changeDirectory), or, with
 * `outsideQueue`, in a transaction of its own, as another instance would.
 */
export async function holdDirectoryLock(db: Db, { outsideQueue = false } = {}): Promise<{ release: () => Promise<void> }> {
  let release = () => undefined as void;
  const held = new Promise<void>((resolve) => (release = resolve));
  let locked = () => undefined as void;
  const isLocked = new Promise<void>((resolve) => (locked = resolve));
  const hold = async (trx?: Knex.Transaction) => {
    if (trx) await trx('directory_state').where({ id: 1 }).increment('version', 1);
    locked();
    await held;
  };
  const holder = outsideQueue ? db.transaction((trx) => hold(trx)) : changeDirectory(db, () => hold());
  await isLocked;
  return {
    release: async () => {
      release();
      await holder;
    },
  };
}

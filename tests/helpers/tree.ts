import type { Db } from '../../src/lib/db';
import { computePreorder } from '../../src/modules/contacts';

interface Row {
  id: number;
  parent_id: number | null;
  sort_name: string;
  tree_ord: number;
  depth: number;
  is_active: boolean;
  unit_id: number;
}

/**
 * Checks every invariant of the directory's tree in one read (one consistent snapshot):
 * ORDER BY tree_ord is the pre-order with siblings by (sort_name, id), depth is the level,
 * labels are positive and distinct, no parent chain loops, every parent exists and is in the
 * child's unit, and an active contact's parent is active. Returns the problems found.
 */
export async function treeProblems(db: Db): Promise<string[]> {
  const rows: Row[] = (
    await db('users').select('id', 'parent_id', 'sort_name', 'tree_ord', 'depth', 'is_active', 'unit_id')
  ).map((r) => ({
    id: Number(r.id),
    parent_id: r.parent_id === null ? null : Number(r.parent_id),
    sort_name: String(r.sort_name),
    tree_ord: Number(r.tree_ord),
    depth: Number(r.depth),
    is_active: Boolean(Number(r.is_active)),
    unit_id: Number(r.unit_id),
  }));
  const problems: string[] = [];
  const byId = new Map(rows.map((r) => [r.id, r]));
  for (const r of rows) {
    if (r.parent_id === null) continue;
    const parent = byId.get(r.parent_id);
    if (!parent) problems.push(`${r.id}: parent ${r.parent_id} missing`);
    else {
      if (parent.unit_id !== r.unit_id) problems.push(`${r.id}: parent ${parent.id} in another unit`);
      if (r.is_active && !parent.is_active) problems.push(`${r.id}: active under inactive ${parent.id}`);
    }
    const seen = new Set<number>([r.id]);
    for (let at: number | null = r.parent_id; at !== null; at = byId.get(at)?.parent_id ?? null) {
      if (seen.has(at)) {
        problems.push(`${r.id}: parent chain loops`);
        break;
      }
      seen.add(at);
    }
  }
  if (problems.length > 0) return problems;
  const expected = computePreorder(rows);
  const actual = [...rows].sort((a, b) => a.tree_ord - b.tree_ord);
  const expectedOrder = [...rows].sort((a, b) => expected.get(a.id)!.tree_ord - expected.get(b.id)!.tree_ord);
  const labels = new Set<number>();
  actual.forEach((r, i) => {
    if (r.tree_ord <= 0) problems.push(`${r.id}: label ${r.tree_ord} not placed`);
    if (labels.has(r.tree_ord)) problems.push(`${r.id}: label ${r.tree_ord} shared`);
    labels.add(r.tree_ord);
    if (expectedOrder[i].id !== r.id) problems.push(`position ${i}: ${r.id} where ${expectedOrder[i].id} belongs`);
    if (expected.get(r.id)!.depth !== r.depth) problems.push(`${r.id}: depth ${r.depth}, level is ${expected.get(r.id)!.depth}`);
  });
  return problems.slice(0, 20);
}

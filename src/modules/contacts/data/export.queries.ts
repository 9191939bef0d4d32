import type { Queryable } from '../../../lib/db';
import { containsTerm, joinCandidates, LIST_SEARCH_FIELDS } from './candidates';
import { subtreeEnd } from './tree/keys';
import { applyFilters } from './listing.queries';
import { userQuery } from './users.queries';
import type { ContactFilters } from '../domain/filters';

/** The fields of an exported contact: the columns of the import (docs/import-export.md). */
const EXPORT_FIELDS = [
  'name', 'service_no', 'email', 'phone', 'mobile', 'alternative_mobile', 'unit_code', 'unit_name',
  'department_name', 'designation_name', 'rank_name', 'role_name', 'status', 'parent_service_no',
];

export type ExportRow = Record<string, string | null> & { depth: number };

/** Rows a batch reads: memory holds one batch, whatever the size of the export. */
const BATCH = 2000;

/**
 * The contacts of a listing's filtered set in the directory's pre-order, a batch at a time
 * (keyset on the order key, so each batch is an indexed range read). With `rootId`, the set is
 * the subtree of that contact, itself first and without its parent; null when that contact
 * does not exist.
 */
export async function exportBatches(
  db: Queryable,
  filters: ContactFilters,
  rootId?: number,
): Promise<AsyncGenerator<ExportRow[]> | null> {
  let from = 0;
  let to = Number.MAX_SAFE_INTEGER;
  let rootDepth = -1;
  if (rootId !== undefined) {
    const root = await db('users').where({ id: rootId }).first('tree_ord', 'depth');
    if (!root) return null;
    from = Number(root.tree_ord) - 1;
    rootDepth = Number(root.depth);
    to = await subtreeEnd(db, Number(root.tree_ord), rootDepth);
  }
  return (async function* batches() {
    for (;;) {
      const q = applyFilters(userQuery(db, EXPORT_FIELDS), filters, { after: from, before: to })
        .select('u.tree_ord', 'u.depth')
        .orderBy('u.tree_ord')
        .limit(BATCH);
      if (filters.search) joinCandidates(q, db, filters.search);
      const rows: Array<Record<string, unknown>> = await q;
      if (rows.length === 0) return;
      from = Number(rows[rows.length - 1].tree_ord);
      const kept = filters.search ? rows.filter((r) => containsTerm(r, filters.search!, LIST_SEARCH_FIELDS)) : rows;
      yield kept.map((r) => {
        const out: ExportRow = { depth: Number(r.depth) } as ExportRow;
        for (const f of EXPORT_FIELDS) out[f] = r[f] === null || r[f] === undefined ? null : String(r[f]);
        // a subtree is a tree of its own: its root's parent is not in it
        if (out.depth === rootDepth) out.parent_service_no = null;
        return out;
      });
      if (rows.length < BATCH) return;
    }
  })();
}

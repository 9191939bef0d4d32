import type { Db } from '../../../lib/db';
import { atOneVersion } from './tree/one-version';
import { LIST_SEARCH_FIELDS } from '../domain/grams';
import { containsTerm, joinCandidates } from './candidates';
import { subtreeEnd } from './tree/keys';
import { applyFilters } from './listing.queries';
import { userQuery } from './users.queries';
import type { ContactFilters } from '../domain/filters';

/** The fields of an exported contact: the columns of the import (docs/import-export.md). */
const EXPORT_FIELDS = [
  'name', 'service_no', 'email', 'phone', 'mobile', 'alternative_mobile', 'unit_code', 'unit_name',
  'department_name', 'designation_name', 'rank_name', 'role_name', 'status', 'parent_service_no',
];

export type ExportRow = Record<string, string | null>;

/** Rows a batch reads: memory holds one batch, whatever the size of the export. */
const BATCH = 2000;
/** Ids the pass that fixes the export's order reads per statement (keyset on the order key). */
const ID_BATCH = 50_000;

/**
 * The contacts of a listing's filtered set in the directory's pre-order, a batch at a time. With
 * `rootId`, the set is the subtree of that contact, itself first and without its parent; null
 * when that contact does not exist.
 *
 * Which contacts, and in what order, is read first, at one directory version (one-version.ts):
 * an export takes seconds, and a batch-by-batch walk of the order keys would meet the moves
 * committed meanwhile (a moved subtree exported twice or not at all). The ids are held as 4
 * bytes each; each batch then reads its contacts' fields as they are when it runs, leaving out
 * those deleted or no longer in the filtered set since.
 */
export async function exportBatches(db: Db, filters: ContactFilters, rootId?: number): Promise<AsyncGenerator<ExportRow[]> | null> {
  const ids = await atOneVersion(db, null, () => exportOrder(db, filters, rootId));
  if (!ids) return null;
  return (async function* batches() {
    for (let from = 0; from < ids.length; from += BATCH) {
      const chunk = Array.from(ids.subarray(from, from + BATCH));
      const q = applyFilters(userQuery(db, EXPORT_FIELDS), filters).select('u.id').whereIn('u.id', chunk);
      const byId = new Map<number, Record<string, unknown>>();
      for (const r of (await q) as Array<Record<string, unknown>>) byId.set(Number(r.id), r);
      const rows: ExportRow[] = [];
      for (const id of chunk) {
        const r = byId.get(id);
        if (!r || (filters.search && !containsTerm(r, filters.search, LIST_SEARCH_FIELDS))) continue;
        const out: ExportRow = {};
        for (const f of EXPORT_FIELDS) out[f] = r[f] === null || r[f] === undefined ? null : String(r[f]);
        // a subtree is a tree of its own: its root's parent is not in it
        if (id === rootId) out.parent_service_no = null;
        rows.push(out);
      }
      if (rows.length > 0) yield rows;
    }
  })();
}

/** The ids of the export's contacts in pre-order (a search's candidates: checked per batch); null for an unknown root. */
async function exportOrder(db: Db, filters: ContactFilters, rootId?: number): Promise<Uint32Array | null> {
  let from = 0;
  let to = Number.MAX_SAFE_INTEGER;
  if (rootId !== undefined) {
    const root = await db('users').where({ id: rootId }).first('tree_ord', 'depth');
    if (!root) return null;
    from = Number(root.tree_ord) - 1;
    to = await subtreeEnd(db, Number(root.tree_ord), Number(root.depth));
  }
  const parts: Uint32Array[] = [];
  for (;;) {
    const q = applyFilters(db('users as u'), filters, { after: from, before: to }).select('u.id', 'u.tree_ord').orderBy('u.tree_ord').limit(ID_BATCH);
    if (filters.search) joinCandidates(q, db, filters.search);
    const rows: Array<{ id: number; tree_ord: number }> = await q;
    parts.push(Uint32Array.from(rows, (r) => Number(r.id)));
    if (rows.length < ID_BATCH) break;
    from = Number(rows[rows.length - 1].tree_ord);
  }
  const ids = new Uint32Array(parts.reduce((n, p) => n + p.length, 0));
  parts.reduce((at, p) => (ids.set(p, at), at + p.length), 0);
  return ids;
}

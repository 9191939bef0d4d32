import type { Knex } from 'knex';
import { chunks } from '../../../../lib/chunks';
import { dialectOf, type Db, type Queryable } from '../../../../lib/db';
import { contactGrams, contactGramsView, SEARCH_FIELDS, type SearchableFields } from '../../domain/grams';
import { BACKLOG_TABLE } from '../grams';
import { computePreorder, ORD_LIMIT, writeLabels } from './labels';
import { lockedChange } from './change-queue';
import { changeStamp, markSearchChanged } from './lock';
import { sortNameOf } from './keys';

/**
 * The directory's derived columns checked against the rows they derive from, and rebuilt from
 * them (`npm run directory:check [-- --repair]`; README, Operations). A contact's `sort_name`
 * derives from its name, its `depth` and `tree_ord` from the parent links and sort names (the
 * pre-order of order.ts), and its search grams from its searchable fields (grams.ts; a contact
 * in the search backlog has none yet, and is skipped). What cannot be derived, a parent link
 * that never reaches a root (a cycle) or names no contact, is reported and left to a person.
 */

/** The problems of each kind: how many, and the first ids. */
export interface DirectoryFinding {
  count: number;
  ids: number[];
}

export interface DirectoryReport {
  contacts: number;
  /** contacts waiting in the search backlog: their grams are written by its drain */
  backlog: number;
  orphan: DirectoryFinding;
  cycle: DirectoryFinding;
  sort_name: DirectoryFinding;
  depth: DirectoryFinding;
  order: DirectoryFinding;
  grams: DirectoryFinding;
}

export const FINDINGS = ['orphan', 'cycle', 'sort_name', 'depth', 'order', 'grams'] as const;
const LISTED_IDS = 20;

interface TreeRow {
  id: number;
  parent_id: number | null;
  name: string;
  sort_name: string;
  depth: number;
  tree_ord: number;
}

/** Whether a report finds nothing wrong. */
export function directorySound(report: DirectoryReport): boolean {
  return FINDINGS.every((kind) => report[kind].count === 0);
}

function finding(ids: number[]): DirectoryFinding {
  return { count: ids.length, ids: ids.slice(0, LISTED_IDS) };
}

async function treeRows(db: Queryable): Promise<TreeRow[]> {
  const rows = await db('users').select('id', 'parent_id', 'name', 'sort_name', 'depth', 'tree_ord').orderBy('id');
  return rows.map((r) => ({
    id: Number(r.id),
    parent_id: r.parent_id === null ? null : Number(r.parent_id),
    name: String(r.name),
    sort_name: String(r.sort_name), // MySQL gives the binary column as a Buffer
    depth: Number(r.depth),
    tree_ord: Number(r.tree_ord),
  }));
}

/**
 * What the tree columns should hold: each row's depth and label where it is reachable from a
 * root, in the pre-order of the given sort names (the stored ones, to check the labels against
 * what they were derived from; the names' own, to repair).
 */
function derivedTree(rows: TreeRow[], sortNames: Map<number, string>) {
  const known = new Set(rows.map((r) => r.id));
  const orphans = rows.filter((r) => r.parent_id !== null && !known.has(r.parent_id)).map((r) => r.id);
  const placed = computePreorder(rows.map((r) => ({ id: r.id, parent_id: r.parent_id, sort_name: sortNames.get(r.id)! })));
  const orphaned = new Set(orphans);
  // not reached from a root, and not an orphan: in a cycle, or under one (or under an orphan)
  const unreachable = rows.filter((r) => !placed.has(r.id) && !orphaned.has(r.id)).map((r) => r.id);
  return { placed, orphans, unreachable };
}

/** A checksum of a set of grams: how many, and their sum modulo a prime (exact as a JavaScript number). */
const MODULUS = 1_000_000_007;
function gramSum(grams: ArrayLike<number>): string {
  let sum = 0;
  for (let i = 0; i < grams.length; i++) sum += grams[i] % MODULUS;
  return `${grams.length}:${sum}`;
}

/**
 * The contacts whose stored grams differ from their fields' (those in the backlog left out).
 * The grams table has no index on contact_id (its migration says why): the stored grams are
 * summed per contact in one scan, and compared with the sums of what each contact's fields give.
 */
async function gramMismatches(db: Queryable, ids: number[], backlog: Set<number>): Promise<number[]> {
  const stored = new Map<number, string>();
  const sums = await db('contact_search_grams')
    .groupBy('contact_id')
    .select('contact_id', db.raw('COUNT(*) as n'), db.raw(`SUM(gram % ${MODULUS}) as s`));
  for (const g of sums) stored.set(Number(g.contact_id), `${Number(g.n)}:${Number(g.s)}`);
  const wrong: number[] = [];
  for (const chunk of chunks(ids, 1000)) {
    for (const row of await db('users').whereIn('id', chunk).select('id', ...SEARCH_FIELDS)) {
      const id = Number(row.id);
      if (!backlog.has(id) && gramSum(contactGramsView(row as SearchableFields)) !== (stored.get(id) ?? '0:0')) wrong.push(id);
    }
  }
  return wrong;
}

async function inspect(db: Queryable) {
  const rows = await treeRows(db);
  const { placed, orphans, unreachable } = derivedTree(rows, new Map(rows.map((r) => [r.id, r.sort_name])));
  const backlog = new Set((await db(BACKLOG_TABLE).pluck('contact_id')).map(Number));
  const sortNames = new Map(rows.map((r) => [r.id, sortNameOf(r.name)]));
  const wrongSortName = rows.filter((r) => r.sort_name !== sortNames.get(r.id)).map((r) => r.id);
  const wrongDepth = rows.filter((r) => placed.has(r.id) && placed.get(r.id)!.depth !== r.depth).map((r) => r.id);
  // ORDER BY tree_ord is the pre-order when the labels rise along it, all within (0, ORD_LIMIT)
  const byId = new Map(rows.map((r) => [r.id, r]));
  const preorder = [...placed.keys()];
  const outOfOrder = preorder.filter((id, i) => {
    const ord = byId.get(id)!.tree_ord;
    return ord <= 0 || ord >= ORD_LIMIT || (i > 0 && ord <= byId.get(preorder[i - 1])!.tree_ord);
  });
  const wrongGrams = await gramMismatches(db, rows.map((r) => r.id), backlog);
  const report: DirectoryReport = {
    contacts: rows.length,
    backlog: backlog.size,
    orphan: finding(orphans),
    cycle: finding(unreachable),
    sort_name: finding(wrongSortName),
    depth: finding(wrongDepth),
    order: finding(outOfOrder),
    grams: finding(wrongGrams),
  };
  return { report, rows, sortNames, wrongGrams };
}

/**
 * Checks every derived column of the directory; changes nothing. Its reads see one state of the
 * directory (a repeatable-read transaction on MySQL, a read transaction on SQLite), so that a
 * change committed while it runs is not seen half.
 */
export async function checkDirectory(db: Db): Promise<DirectoryReport> {
  const options: Knex.TransactionConfig = dialectOf(db) === 'mysql' ? { isolationLevel: 'repeatable read' } : {};
  return db.transaction(async (trx) => (await inspect(trx)).report, options);
}

/** Gives the contacts `ids` exactly their fields' grams: the stored ones found in one scan, the wrong ones deleted by key. */
async function rewriteGrams(trx: Knex.Transaction, ids: number[]): Promise<void> {
  if (ids.length === 0) return;
  const stored = new Map<number, Set<number>>(ids.map((id) => [id, new Set<number>()]));
  for (const chunk of chunks(ids, 1000)) {
    for (const g of await trx('contact_search_grams').whereIn('contact_id', chunk).select('contact_id', 'gram')) stored.get(Number(g.contact_id))!.add(Number(g.gram));
  }
  for (const chunk of chunks(ids, 500)) {
    for (const row of await trx('users').whereIn('id', chunk).select('id', ...SEARCH_FIELDS)) {
      const id = Number(row.id);
      const want = new Set(contactGrams(row as SearchableFields));
      const have = stored.get(id)!;
      const gone = [...have].filter((g) => !want.has(g));
      const added = [...want].filter((g) => !have.has(g));
      for (const batch of chunks(gone, 500)) await trx('contact_search_grams').where({ contact_id: id }).whereIn('gram', batch).delete();
      for (const batch of chunks(added, 500)) await trx('contact_search_grams').insert(batch.map((gram) => ({ gram, contact_id: id })));
    }
  }
}

/**
 * Rebuilds what `checkDirectory` finds wrong and can be derived (sort names, depths, labels,
 * grams), in one transaction that holds the directory lock, so that no change runs meanwhile.
 * With `respace`, the whole order is labelled afresh even when it is sound, its labels evenly
 * spread: for a directory imported before large groups were spread (gaps.ts, GROUP_SPACING),
 * whose dense run of labels the first change among them would otherwise relabel, under the
 * lock, at whatever time it comes. Returns the report before the repair; a check after it
 * tells what is left (cycles, orphans).
 */
export async function repairDirectory(db: Db, options: { respace?: boolean } = {}): Promise<DirectoryReport> {
  return lockedChange(db, async (trx) => {
    const { report, rows, sortNames, wrongGrams } = await inspect(trx);
    if (directorySound(report) && !options.respace) return report;
    for (const row of rows.filter((r) => r.sort_name !== sortNames.get(r.id))) {
      await trx('users').where({ id: row.id }).update({ sort_name: sortNames.get(row.id)!, change_version: changeStamp(trx) });
    }
    // labels out of order, or sort names changed: the whole pre-order labelled afresh (ORD_STEP
    // apart); else only the wrong depths, each row keeping its label
    const { placed } = derivedTree(rows, sortNames);
    const placedRows = rows.filter((r) => placed.has(r.id));
    const relabel =
      options.respace || report.order.count > 0 || report.sort_name.count > 0
        ? placedRows.map((r) => ({ id: r.id, ...placed.get(r.id)! })).filter((r, i) => r.tree_ord !== placedRows[i].tree_ord || r.depth !== placedRows[i].depth)
        : placedRows.filter((r) => placed.get(r.id)!.depth !== r.depth).map((r) => ({ id: r.id, tree_ord: r.tree_ord, depth: placed.get(r.id)!.depth }));
    await writeLabels(trx, relabel);
    await rewriteGrams(trx, wrongGrams);
    markSearchChanged(trx);
    return report;
  }, { alone: true });
}

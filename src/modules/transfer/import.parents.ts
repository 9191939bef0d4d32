import type { Knex } from 'knex';
import { findUserRows, type UserRow } from '../contacts';
import type { ImportRow, Resolved } from './import.rows';

/**
 * Each row's parent: another row of the file (by service number, in any order) or an active
 * contact of the directory, in the same unit; a cycle among the rows is an error on each of its rows.
 */
export async function resolveParents(
  trx: Knex.Transaction,
  resolved: Resolved[],
  bySn: ReadonlyMap<string, Resolved>,
  existing: ReadonlyMap<string, UserRow>,
  fail: (r: ImportRow, field: string, message: string) => void,
): Promise<void> {
  const outside = new Set<string>();
  for (const r of resolved) {
    const p = r.input.values.parent_service_no;
    if (p && !bySn.has(p) && !existing.has(p)) outside.add(p);
  }
  const directory = new Map(existing);
  for (const u of await findUserRows(trx, [...outside], 'service_no')) directory.set(u.service_no, u);

  for (const r of resolved) {
    const p = r.input.values.parent_service_no;
    if (p === undefined) {
      if (!r.current) r.parent = null;
      continue;
    }
    if (p === null) {
      r.parent = null;
      continue;
    }
    if (p === r.serviceNo) {
      fail(r.input, 'parent_service_no', 'Cannot move a contact under itself or one of its descendants');
      continue;
    }
    const inFile = bySn.get(p);
    const inDirectory = directory.get(p);
    const parentUnit = inFile ? inFile.unitId : inDirectory?.is_active ? inDirectory.unit_id : undefined;
    if (!inFile && (!inDirectory || !inDirectory.is_active)) {
      fail(r.input, 'parent_service_no', `Parent contact not found: ${p}`);
      continue;
    }
    if (parentUnit !== undefined && r.unitId !== undefined && parentUnit !== r.unitId) {
      fail(r.input, 'parent_service_no', 'Parent must belong to the same unit');
      continue;
    }
    // a contact of the directory that the file also holds may change: it is placed as a row is
    if (inFile) {
      r.parentRow = inFile;
      r.parent = inFile.current ? { id: inFile.current.id } : { serviceNo: p };
    } else {
      r.parent = { id: inDirectory!.id };
    }
  }

  // cycles among the rows: walk up from each row, marking the rows of the walk
  const state = new Map<Resolved, 'walking' | 'done'>();
  for (const start of resolved) {
    const walk: Resolved[] = [];
    let at: Resolved | undefined = start;
    while (at && !state.has(at)) {
      state.set(at, 'walking');
      walk.push(at);
      at = at.parentRow;
    }
    if (at && state.get(at) === 'walking') {
      for (let i = walk.indexOf(at); i < walk.length; i++) {
        fail(walk[i].input, 'parent_service_no', 'Cannot move a contact under itself or one of its descendants');
      }
    }
    for (const r of walk) state.set(r, 'done');
  }
}

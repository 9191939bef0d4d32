import type { Knex } from 'knex';
import { findUserRows, type UserRow } from '../contacts';
import type { ImportRow, Resolved } from './import.rows';

/**
 * Each row's parent, from its parent service number: another row of the file (in any order) or
 * a contact of the directory. A number that names neither is an error of the row; whether the
 * parent may take the contact (active, the same unit, no cycle) is the contacts' writer's rule.
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
    const inFile = bySn.get(p);
    // a contact of the directory that the file also holds may change: it is placed as a row is
    if (inFile?.current) r.parent = { id: inFile.current.id };
    else if (inFile) r.parent = { serviceNo: p };
    else if (directory.has(p)) r.parent = { id: directory.get(p)!.id };
    else fail(r.input, 'parent_service_no', `Parent contact not found: ${p}`);
  }
}

import type { Knex } from 'knex';
import { chunks } from '../../../lib/chunks';

/**
 * Which of `ids` name a row of `table` (units, departments, designations, ranks, roles), each
 * with its unit when the table has one (`withUnit`: departments), else null.
 */
export async function referencedRows(trx: Knex.Transaction, table: string, ids: number[], withUnit: boolean): Promise<Map<number, number | null>> {
  const rows = new Map<number, number | null>();
  for (const chunk of chunks(ids, 1000)) {
    for (const r of await trx(table).whereIn('id', chunk).select(withUnit ? ['id', 'unit_id'] : ['id'])) rows.set(Number(r.id), withUnit ? Number(r.unit_id) : null);
  }
  return rows;
}

/** The contacts of `organizationId` that hold one of `externalIds` (SCIM externalId), by that id. */
export async function externalIdHolders(trx: Knex.Transaction, organizationId: number, externalIds: string[]): Promise<Map<string, number>> {
  const holders = new Map<string, number>();
  for (const chunk of chunks(externalIds, 1000)) {
    for (const r of await trx('users').where({ organization_id: organizationId }).whereIn('external_id', chunk).select('id', 'external_id')) holders.set(String(r.external_id), Number(r.id));
  }
  return holders;
}

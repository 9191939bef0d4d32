import { dialectOf, type Queryable } from '../../../lib/db';
import { toIsoRequired } from '../../../lib/time';
import type { ChangePosition, ChangeType } from '../domain/change-cursor';
import { CHANGES_TABLE } from './changes.writer';

/** A row of the change feed (contact_changes), as a page reads it. */
export interface ChangeRow {
  version: number;
  contact_id: number;
  type: ChangeType;
  /** ISO 8601 */
  at: string;
  /** the contact's organization when it changed (which webhooks get it) */
  organization_id: number;
}

/**
 * The feed after `after`, at most `limit` rows in (version, contact_id) order, and how far the
 * feed is pruned (directory_state.changes_pruned_through), in one statement: one read of the
 * directory's row by its key and one range read of contact_changes' primary key, seen together
 * (one statement, one snapshot), so a page that a pruning has cut is always told so by the
 * value beside it. The range is written for each database's optimizer: MySQL and MariaDB make
 * two exact ranges of the OR; SQLite reads a row value comparison as one range.
 */
export async function changesAfter(db: Queryable, after: ChangePosition, limit: number): Promise<{ rows: ChangeRow[]; prunedThrough: number }> {
  const range =
    dialectOf(db) === 'mysql'
      ? { sql: '(version > ? OR (version = ? AND contact_id > ?))', bindings: [after.version, after.version, after.contactId] }
      : { sql: '(version, contact_id) > (?, ?)', bindings: [after.version, after.contactId] };
  const sql = [
    'SELECT * FROM (SELECT 0 AS part, changes_pruned_through AS version, 0 AS contact_id, NULL AS type, NULL AS at, 0 AS organization_id FROM directory_state WHERE id = 1) s',
    'UNION ALL',
    `SELECT * FROM (SELECT 1 AS part, version, contact_id, type, at, organization_id FROM ${CHANGES_TABLE} WHERE ${range.sql} ORDER BY version, contact_id LIMIT ?) p`,
  ].join(' ');
  const result = await db.raw(sql, [...range.bindings, limit]);
  const all = (dialectOf(db) === 'mysql' ? result[0] : result) as Array<Record<string, unknown>>;
  let prunedThrough = 0;
  const rows: ChangeRow[] = [];
  for (const r of all) {
    if (Number(r.part) === 0) prunedThrough = Number(r.version);
    else rows.push({ version: Number(r.version), contact_id: Number(r.contact_id), type: r.type as ChangeType, at: toIsoRequired(r.at), organization_id: Number(r.organization_id) });
  }
  // a UNION's rows come in no promised order
  rows.sort((a, b) => a.version - b.version || a.contact_id - b.contact_id);
  return { rows, prunedThrough };
}

/** How far the feed is pruned: where a read without a cursor starts. */
export async function changesPrunedThrough(db: Queryable): Promise<number> {
  const state = await db('directory_state').where({ id: 1 }).first('changes_pruned_through');
  return Number(state?.changes_pruned_through ?? 0);
}

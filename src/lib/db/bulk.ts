import { Readable } from 'node:stream';
import type { Knex } from 'knex';
import { chunks } from '../chunks';

/**
 * Multi-row INSERT ... VALUES written directly: knex builds SQLite's multi-row inserts as a
 * compound SELECT (capped at 500 terms, and slow to parse). Batches stay under SQLite's
 * 32,766 bound parameters and MySQL's packet size.
 */
export async function bulkInsert(
  trx: Knex.Transaction,
  table: string,
  rows: Array<Record<string, unknown>>,
  progress?: { advance(count: number): void },
): Promise<void> {
  if (rows.length === 0) return;
  const columns = Object.keys(rows[0]);
  const size = Math.max(1, Math.min(5000, Math.floor(30000 / columns.length)));
  const tuple = `(${columns.map(() => '?').join(',')})`;
  for (const chunk of chunks(rows, size)) {
    const bindings = chunk.flatMap((row) => columns.map((c) => row[c] as Knex.Value));
    await trx.raw(`INSERT INTO ?? (${columns.map(() => '??').join(',')}) VALUES ${chunk.map(() => tuple).join(',')}`, [
      table,
      ...columns,
      ...bindings,
    ]);
    progress?.advance(chunk.length);
  }
}

/**
 * Streams rows into a MySQL table with LOAD DATA LOCAL INFILE (several times faster than
 * INSERT for millions of rows). Returns false, having written nothing, when the server does
 * not allow it (local_infile off), so the caller can fall back to bulkInsert.
 */
export async function loadData(
  trx: Knex.Transaction,
  table: string,
  columns: string[],
  lines: () => Iterable<string>,
): Promise<boolean> {
  const sql = `LOAD DATA LOCAL INFILE 'rows.tsv' INTO TABLE ?? FIELDS TERMINATED BY '\\t' LINES TERMINATED BY '\\n' (${columns.map(() => '??').join(',')})`;
  try {
    const stream = () => Readable.from((function* () { for (const text of lines()) yield Buffer.from(text); })());
    await trx.raw(sql, [table, ...columns]).options({ infileStreamFactory: stream });
    return true;
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === 'ER_NOT_ALLOWED_COMMAND' || code === 'ER_LOAD_INFILE_CAPABILITY_DISABLED') return false;
    throw err;
  }
}

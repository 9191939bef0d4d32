import { Readable } from 'node:stream';
import type { Knex } from 'knex';
import { chunks } from '../chunks';
import { TimeSlices } from '../yield';
import { dialectOf } from './types';

/** How a bulk write meets a row whose key is already in the table. */
export interface BulkOptions {
  /** skip it (INSERT IGNORE, LOAD DATA ... IGNORE, SQLite's INSERT OR IGNORE) instead of failing */
  ignoreDuplicates?: boolean;
  progress?: { advance(count: number): void };
}

/**
 * The values of one SQLite INSERT: its compiled program grows with them (some 30,000 values
 * took a few MiB, outside V8's heap, while a 100,000-row import ran), and a row costs SQLite the
 * same in a statement of 40 rows as in one of 1,200: a written import's peak fell by some 5 MiB,
 * and it was no slower (docs/performance.md, "An import's memory").
 */
const SQLITE_VALUES_PER_INSERT = 1024;

/**
 * Multi-row INSERT ... VALUES written directly: knex builds SQLite's multi-row inserts as a
 * compound SELECT (capped at 500 terms, and slow to parse). Batches stay under SQLite's
 * 32,766 bound parameters (SQLITE_VALUES_PER_INSERT) and MySQL's packet size.
 */
export async function bulkInsert(
  trx: Knex.Transaction,
  table: string,
  rows: Array<Record<string, unknown>>,
  options: BulkOptions = {},
): Promise<void> {
  if (rows.length === 0) return;
  const columns = Object.keys(rows[0]);
  const sqlite = dialectOf(trx) === 'sqlite';
  const size = Math.max(1, Math.min(5000, Math.floor((sqlite ? SQLITE_VALUES_PER_INSERT : 30000) / columns.length)));
  const tuple = `(${columns.map(() => '?').join(',')})`;
  const insert = !options.ignoreDuplicates ? 'INSERT' : sqlite ? 'INSERT OR IGNORE' : 'INSERT IGNORE';
  const into = trx.raw(`${insert} INTO ?? (${columns.map(() => '??').join(',')})`, [table, ...columns]).toSQL().sql;
  const sqlOf = (count: number) => `${into} VALUES ${new Array<string>(count).fill(tuple).join(',')}`;
  const run = sqlite ? await sqliteInserts(trx, sqlOf) : null;
  for (const chunk of chunks(rows, size)) {
    const bindings = chunk.flatMap((row) => columns.map((c) => row[c] as Knex.Value));
    if (run) run(chunk.length, bindings);
    else await trx.raw(sqlOf(chunk.length), bindings);
    options.progress?.advance(chunk.length);
  }
}

interface SqliteTransactionClient {
  acquireConnection(): Promise<{ prepare(sql: string): { run(bindings: unknown[]): unknown } }>;
  _formatBindings(bindings: readonly unknown[]): unknown[];
}

/**
 * SQLite's INSERTs of one bulk write, each size of chunk prepared once on the transaction's
 * connection (knex's transaction client lends it, and takes nothing back) and run with each
 * chunk's values. Through knex every chunk would be a statement of its own, compiled again and
 * finalized only when V8 collects its small handle: a 100,000-row import held some 8 MiB of
 * such compiled statements outside V8's heap (docs/performance.md, "An import's memory").
 * The values are converted as knex converts them for better-sqlite3 (dates, booleans).
 */
async function sqliteInserts(trx: Knex.Transaction, sqlOf: (count: number) => string) {
  const client = trx.client as unknown as SqliteTransactionClient;
  const connection = await client.acquireConnection();
  const statements = new Map<number, ReturnType<typeof connection.prepare>>();
  return (count: number, bindings: readonly unknown[]) => {
    let statement = statements.get(count);
    if (!statement) statements.set(count, (statement = connection.prepare(sqlOf(count))));
    statement.run(client._formatBindings(bindings));
  };
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
  lines: () => Iterable<string | Buffer>,
  options: Pick<BulkOptions, 'ignoreDuplicates'> = {},
): Promise<boolean> {
  const sql = `LOAD DATA LOCAL INFILE 'rows.tsv' ${options.ignoreDuplicates ? 'IGNORE ' : ''}INTO TABLE ?? CHARACTER SET utf8mb4 FIELDS TERMINATED BY '\\t' LINES TERMINATED BY '\\n' (${columns.map(() => '??').join(',')})`;
  try {
    // an async source that yields to the event loop between slices: a sync one is drained as fast
    // as the socket takes it, building the lines of 100,000 rows while no other request runs
    const stream = () =>
      Readable.from(
        (async function* () {
          const slices = new TimeSlices(10, 1);
          for (const chunk of lines()) {
            yield typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
            if (slices.due()) await slices.pause();
          }
        })(),
      );
    await trx.raw(sql, [table, ...columns]).options({ infileStreamFactory: stream });
    return true;
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === 'ER_NOT_ALLOWED_COMMAND' || code === 'ER_LOAD_INFILE_CAPABILITY_DISABLED') return false;
    throw err;
  }
}

/** Special characters of a LOAD DATA text field (its default ESCAPED BY '\\'), and what stands for each. */
const TSV_ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r', '\0': '\\0' };

/** A value as a field of a LOAD DATA line: NULL as `\N`, a date as MySQL's DATETIME(3) in UTC, a boolean as 1 or 0, text escaped. */
export function tsvField(value: unknown): string {
  if (value === null || value === undefined) return '\\N';
  if (value instanceof Date) return value.toISOString().replace('T', ' ').replace('Z', '');
  if (typeof value === 'boolean') return value ? '1' : '0';
  return String(value).replace(/[\\\t\n\r\0]/g, (ch) => TSV_ESCAPES[ch]);
}

/**
 * Fewer rows go in one INSERT: LOAD DATA costs two more round trips (the server asks for the
 * file, the client sends it), 1 to 4 ms for one row against about 0.5 for an INSERT, inside a
 * transaction that often holds the directory lock (an audit entry's targets).
 */
const LOAD_DATA_FROM_ROWS = 100;

/** Rows per LOAD DATA chunk handed to the driver. */
const TSV_CHUNK_ROWS = 1000;

/**
 * Writes rows (all with the keys of the first) in one statement where MySQL allows LOAD DATA
 * LOCAL (from LOAD_DATA_FROM_ROWS rows), else as bulkInsert's multi-row INSERTs. The same rows, the same table, less work for
 * both sides: no statement of 100,000 placeholders to build, escape and parse.
 */
export async function writeRows(trx: Knex.Transaction, table: string, rows: Array<Record<string, unknown>>, options: BulkOptions = {}): Promise<void> {
  if (rows.length === 0) return;
  const columns = Object.keys(rows[0]);
  function* lines(): Generator<string> {
    for (let i = 0; i < rows.length; i += TSV_CHUNK_ROWS) {
      let chunk = '';
      for (const row of rows.slice(i, i + TSV_CHUNK_ROWS)) chunk += `${columns.map((c) => tsvField(row[c])).join('\t')}\n`;
      yield chunk;
    }
  }
  if (dialectOf(trx) === 'mysql' && rows.length >= LOAD_DATA_FROM_ROWS && (await loadData(trx, table, columns, lines, options))) {
    options.progress?.advance(rows.length);
    return;
  }
  await bulkInsert(trx, table, rows, options);
}

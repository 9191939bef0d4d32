import { bulkInsert, dialectOf, loadData, tsvField, type Db } from '../src/lib/db';
import type { Progress } from './progress';

type Cell = string | number | Date | null;

/**
 * Writes `count` generated rows into `table`: on MySQL as LOAD DATA LOCAL streams; elsewhere, or
 * where the server refuses LOAD DATA, as multi-row inserts of 20,000 rows per transaction.
 */
export async function loadGenerated<C extends string>(
  db: Db,
  table: string,
  columns: readonly C[],
  count: number,
  record: (i: number) => Record<C, Cell>,
  progress: Progress,
): Promise<void> {
  function* lines(): Generator<string> {
    for (let i = 0; i < count; i += 10_000) {
      let chunk = '';
      for (let j = i; j < Math.min(count, i + 10_000); j++) {
        const r = record(j);
        chunk += `${columns.map((c) => tsvField(r[c])).join('\t')}\n`;
      }
      progress.advance(Math.min(10_000, count - i));
      yield chunk;
    }
  }
  const loaded = dialectOf(db) === 'mysql' && (await db.transaction((trx) => loadData(trx, table, [...columns], lines)));
  if (!loaded) {
    for (let done = 0; done < count; done += 20_000) {
      const rows = Array.from({ length: Math.min(20_000, count - done) }, (_, i) => record(done + i));
      await db.transaction((trx) => bulkInsert(trx, table, rows, { progress }));
    }
  }
  progress.done();
}

import type { Knex } from 'knex';
import { bulkInsert, dialectOf, loadData } from '../../../lib/db';
import { contactGramsView, type SearchableFields } from '../domain/grams';

/** New contacts whose grams are not written yet (backlog.ts). */
export const BACKLOG_TABLE = 'contact_search_backlog';

/** Search grams per INSERT batch, and per LOAD DATA (MySQL: about a second's work for the server). */
const GRAM_ROWS = 20_000;
const LOAD_ROWS = 500_000;
const IGNORE = { ignoreDuplicates: true };
/** Bytes of LOAD DATA lines per chunk handed to the driver. */
const LINES_CHUNK = 1 << 16;

/** Writes the decimal digits of an integer in [0, 2^53) into `buf` at `at`; returns where they end. */
function writeDecimal(buf: Buffer, at: number, n: number): number {
  let digits = 1;
  for (let power = 10; power <= n; power *= 10) digits++;
  for (let i = at + digits - 1; i >= at; i--) {
    buf[i] = 0x30 + (n % 10);
    n = Math.floor(n / 10);
  }
  return at + digits;
}

/** Hands each contact's id and searchable fields to `visit`, in ascending id order, every time it is called. */
export type ContactWalk = (visit: (id: number, fields: SearchableFields) => void) => Promise<void>;

/**
 * The index entries of many contacts (the backlog's: new ones, from an import), in key order
 * (gram, contact): each gram's new postings go in together at the end of its list (new ids are
 * the highest), so each page of the index is written about once, where one contact at a time
 * would touch each page again. Entries already in the table are skipped.
 * The postings are counted first, then laid out in one typed array (4 bytes each: 100,000
 * contacts have some 7 million): the contacts are walked twice rather than held.
 */
export async function insertGramsOf(trx: Knex.Transaction, walk: ContactWalk): Promise<void> {
  const counts = new Map<number, number>();
  await walk((_id, fields) => {
    for (const gram of contactGramsView(fields)) counts.set(gram, (counts.get(gram) ?? 0) + 1);
  });
  const grams = Float64Array.from(counts.keys()).sort();
  const starts = new Float64Array(grams.length + 1);
  const indexOf = new Map<number, number>();
  grams.forEach((gram, i) => {
    starts[i + 1] = starts[i] + counts.get(gram)!;
    indexOf.set(gram, i);
  });
  counts.clear();
  const ids = new Int32Array(starts[grams.length]);
  const next = starts.slice(0, grams.length);
  // in id order, so that each gram's ids come out in order. The walk gives the same values
  // twice; were it not to, a gram it did not count is never written past its range, and a
  // slot it left empty (0, no contact's id) is skipped
  await walk((id, fields) => {
    for (const gram of contactGramsView(fields)) {
      const i = indexOf.get(gram);
      if (i !== undefined && next[i] < starts[i + 1]) ids[next[i]++] = id;
    }
  });
  indexOf.clear();

  // postings [from, to) of the grams, as LOAD DATA lines ("gram\tid\n") written as bytes
  function* lines(from: number, to: number): Generator<Buffer> {
    let buf = Buffer.allocUnsafe(LINES_CHUNK);
    let at = 0;
    for (let g = from; g < to; g++) {
      for (let i = starts[g]; i < starts[g + 1]; i++) {
        if (ids[i] === 0) continue;
        if (at > LINES_CHUNK - 40) {
          yield buf.subarray(0, at);
          buf = Buffer.allocUnsafe(LINES_CHUNK);
          at = 0;
        }
        at = writeDecimal(buf, at, grams[g]);
        buf[at++] = 0x09;
        at = writeDecimal(buf, at, ids[i]);
        buf[at++] = 0x0a;
      }
    }
    if (at > 0) yield buf.subarray(0, at);
  }
  const insertRows = async (from: number, to: number) => {
    let batch: Array<{ gram: number; contact_id: number }> = [];
    for (let g = from; g < to; g++) {
      for (let i = starts[g]; i < starts[g + 1]; i++) if (ids[i] !== 0) batch.push({ gram: grams[g], contact_id: ids[i] });
      if (batch.length >= GRAM_ROWS) {
        await bulkInsert(trx, 'contact_search_grams', batch, IGNORE);
        batch = [];
      }
    }
    await bulkInsert(trx, 'contact_search_grams', batch, IGNORE);
  };
  // MySQL that allows LOAD DATA LOCAL takes them as streams of about LOAD_ROWS rows (each well
  // within DB_QUERY_TIMEOUT_MS); else, and on SQLite, multi-row INSERTs
  let loaded = dialectOf(trx) === 'mysql';
  for (let from = 0; from < grams.length; ) {
    let to = from + 1;
    while (to < grams.length && starts[to] - starts[from] < LOAD_ROWS) to++;
    if (loaded) loaded = await loadData(trx, 'contact_search_grams', ['gram', 'contact_id'], () => lines(from, to), IGNORE);
    if (!loaded) await insertRows(from, to);
    from = to;
  }
}

import type { Knex } from 'knex';
import { bulkInsert, dialectOf, loadData } from '../../../lib/db';

/**
 * Trigrams for substring search. A text is lower-cased and read as code points; each position
 * but the last gives the gram (c[i], c[i+1], c[i+2]), with 0 standing in past the end. A gram
 * packs its three code points into one integer, 17 bits each (code points above 0x1FFFF share
 * the top value, which can only add candidates; every candidate is checked with LIKE after).
 *
 * A query of three or more characters needs every one of its trigrams; a two-character query
 * (c1, c2) is the range of grams that start with it, which the end marker makes complete.
 */

const BITS = 2 ** 17;
const TOP = BITS - 1;

function cap(codePoint: number): number {
  return codePoint > TOP ? TOP : codePoint;
}

function pack(a: number, b: number, c: number): number {
  return (cap(a) * BITS + cap(b)) * BITS + cap(c);
}

function codePoints(text: string): number[] {
  return Array.from(text.toLowerCase(), (ch) => ch.codePointAt(0)!);
}

/**
 * Room for one contact's grams: contactGramsView writes them here and hands out a view, so
 * that indexing 100,000 contacts allocates no array, string or set per contact.
 */
let scratch = new Float64Array(1024);

/**
 * Writes the grams of `lower[from, to)`, a lower-cased text, into `scratch` from `at`, growing it
 * if needed; returns where they end.
 */
function writeGrams(lower: string, at: number, from = 0, to = lower.length): number {
  // at most one gram per UTF-16 unit
  if (at + to - from > scratch.length) {
    const grown = new Float64Array(2 * (at + to - from));
    grown.set(scratch.subarray(0, at));
    scratch = grown;
  }
  // a and b: the two code points before c (-1 before the text's start)
  let a = -1;
  let b = -1;
  for (let i = from; i < to; ) {
    const c = lower.codePointAt(i)!;
    i += c > 0xffff ? 2 : 1;
    if (a >= 0) scratch[at++] = pack(a, b, c);
    a = b;
    b = c;
  }
  if (a >= 0) scratch[at++] = pack(a, b, 0);
  return at;
}

/** The grams written into `scratch` up to `end`, sorted and each once, as a view of it. */
function distinctView(end: number): Float64Array {
  const sorted = scratch.subarray(0, end).sort();
  let count = 0;
  for (let i = 0; i < end; i++) if (i === 0 || sorted[i] !== sorted[i - 1]) scratch[count++] = sorted[i];
  return scratch.subarray(0, count);
}

/** The first two code points of a gram, as one number: the grams of a two-character term share it. */
export function gramPair(gram: number): number {
  return Math.floor(gram / BITS);
}

/** The searchable fields of a contact. */
export const SEARCH_FIELDS = ['name', 'email', 'service_no', 'phone', 'mobile'] as const;
export type SearchableFields = Partial<Record<(typeof SEARCH_FIELDS)[number], string | null>>;

/**
 * The distinct grams of a contact's searchable fields, in ascending order, as a view of a buffer
 * that the next call overwrites: read it before calling again.
 */
export function contactGramsView(fields: SearchableFields): Float64Array {
  let end = 0;
  for (const field of SEARCH_FIELDS) {
    const value = fields[field];
    if (value) end = writeGrams(value.toLowerCase(), end);
  }
  return distinctView(end);
}

/**
 * The grams of contactGramsView, each once or more and in no order (not sorted: the in-memory
 * index's build counts each once itself), from the fields already lower-cased and joined by
 * `separator` (the index's texts, search/matching.ts): the same grams, but those holding the
 * separator, which no term the index answers holds (a term holding it is searched in SQL). A
 * gram at a field's end takes 0 for its missing code points either way. A view of a buffer that
 * the next call overwrites.
 */
export function joinedGramsView(lower: string, separator: string): Float64Array {
  let end = 0;
  for (let from = 0; from <= lower.length; ) {
    let to = lower.indexOf(separator, from);
    if (to < 0) to = lower.length;
    end = writeGrams(lower, end, from, to);
    from = to + separator.length;
  }
  return scratch.subarray(0, end);
}

/** The distinct grams of a contact's searchable fields, in ascending order. */
export function contactGrams(fields: SearchableFields): number[] {
  return Array.from(contactGramsView(fields));
}

type GramQuery = { kind: 'all'; grams: number[] } | { kind: 'prefix'; from: number; to: number };

/** What a search term needs of the index (the term has at least two characters). */
export function gramQueryOf(term: string): GramQuery {
  const cps = codePoints(term);
  if (cps.length === 2) return { kind: 'prefix', from: pack(cps[0], cps[1], 0), to: pack(cps[0], cps[1], TOP) };
  const grams = new Set<number>();
  for (let i = 0; i + 2 < cps.length; i++) grams.add(pack(cps[i], cps[i + 1], cps[i + 2]));
  return { kind: 'all', grams: [...grams] };
}

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

import type { Knex } from 'knex';
import { chunks } from '../../../lib/chunks';
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

/** The grams that index `text`. */
function gramsOf(text: string | null | undefined): number[] {
  if (!text) return [];
  const cps = codePoints(text);
  const out: number[] = [];
  for (let i = 0; i + 1 < cps.length; i++) out.push(pack(cps[i], cps[i + 1], cps[i + 2] ?? 0));
  return out;
}

/** The first two code points of a gram, as one number: the grams of a two-character term share it. */
export function gramPair(gram: number): number {
  return Math.floor(gram / BITS);
}

/** The searchable fields of a contact. */
export const SEARCH_FIELDS = ['name', 'email', 'service_no', 'phone', 'mobile'] as const;
export type SearchableFields = Partial<Record<(typeof SEARCH_FIELDS)[number], string | null>>;

export function contactGrams(fields: SearchableFields): number[] {
  const all = new Set<number>();
  for (const field of SEARCH_FIELDS) for (const g of gramsOf(fields[field])) all.add(g);
  return [...all];
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

/** At most this many of a term's trigrams are joined; the LIKE check after keeps the result exact. */
const MAX_JOINED_GRAMS = 3;

/** Up to `max` grams spread over the term, the first and the last among them. */
function spread(grams: number[], max: number): number[] {
  if (grams.length <= max) return grams;
  return Array.from({ length: max }, (_, i) => grams[Math.round((i * (grams.length - 1)) / (max - 1))]);
}

/**
 * Contact ids whose indexed text holds the term's grams: a superset of the matches. The grams
 * are a self-join on the primary key (gram, contact_id), so the database starts from the
 * rarest posting list (its row estimate) and checks the others by key, instead of reading
 * every posting list whole.
 */
export function candidateIds(db: Knex | Knex.Transaction, term: string): Knex.QueryBuilder {
  const q = gramQueryOf(term);
  if (q.kind === 'prefix') {
    return db('contact_search_grams').distinct('contact_id').whereBetween('gram', [q.from, q.to]);
  }
  const grams = spread(q.grams, MAX_JOINED_GRAMS);
  const query = db('contact_search_grams as g0').where('g0.gram', grams[0]).select('g0.contact_id');
  grams.slice(1).forEach((gram, i) => {
    const alias = `g${i + 1}`;
    query.join(`contact_search_grams as ${alias}`, (on) => on.on(`${alias}.contact_id`, 'g0.contact_id').andOnVal(`${alias}.gram`, '=', gram));
  });
  // Grouped, the candidates are a derived table of their own: every gram is checked (by key)
  // before any contact row is read. Merged into the outer query instead, MySQL reads each
  // contact of the first posting list before checking the other grams: 3x slower for a rare term.
  return query.groupBy('g0.contact_id');
}

/**
 * Brings the index entries of one contact from its old values to its new ones, inside the
 * transaction that changed it: the grams it lost are deleted by key, the new ones inserted.
 */
export async function writeContactGrams(
  trx: Knex.Transaction,
  contactId: number,
  before: SearchableFields,
  after: SearchableFields,
): Promise<void> {
  const old = new Set(contactGrams(before));
  const next = new Set(contactGrams(after));
  const gone = [...old].filter((g) => !next.has(g));
  const added = [...next].filter((g) => !old.has(g));
  for (const chunk of chunks(gone)) {
    await trx('contact_search_grams').where({ contact_id: contactId }).whereIn('gram', chunk).delete();
  }
  for (const chunk of chunks(added, 400)) {
    await trx('contact_search_grams').insert(chunk.map((gram) => ({ gram, contact_id: contactId })));
  }
}

/** Search grams per INSERT batch, and per LOAD DATA (MySQL: about a second's work for the server). */
const GRAM_ROWS = 20_000;
const LOAD_ROWS = 500_000;

/**
 * The index entries of many new contacts (an import), in key order (gram, contact): each gram's
 * new postings go in together at the end of its list (new ids are the highest), so each page of
 * the index is written about once, where one contact at a time would touch each page again.
 * The postings are counted first, then laid out in one typed array (4 bytes each: 100,000
 * contacts have some 7 million), computing each contact's grams twice rather than holding them.
 */
export async function insertNewGrams(trx: Knex.Transaction, contacts: ReadonlyArray<{ id: number; fields: SearchableFields }>): Promise<void> {
  const counts = new Map<number, number>();
  for (const { fields } of contacts) for (const gram of contactGrams(fields)) counts.set(gram, (counts.get(gram) ?? 0) + 1);
  const grams = Float64Array.from(counts.keys()).sort();
  const starts = new Float64Array(grams.length + 1);
  const cursor = new Map<number, number>();
  grams.forEach((gram, i) => {
    starts[i + 1] = starts[i] + counts.get(gram)!;
    cursor.set(gram, starts[i]);
  });
  counts.clear();
  const ids = new Int32Array(starts[grams.length]);
  // contacts in id order, so that each gram's ids come out in order
  for (const { id, fields } of [...contacts].sort((x, y) => x.id - y.id)) {
    for (const gram of contactGrams(fields)) {
      const at = cursor.get(gram)!;
      ids[at] = id;
      cursor.set(gram, at + 1);
    }
  }
  cursor.clear();

  // postings [from, to) of the grams, as LOAD DATA lines or INSERT rows
  function* lines(from: number, to: number): Generator<string> {
    let chunk = '';
    for (let g = from; g < to; g++) {
      for (let i = starts[g]; i < starts[g + 1]; i++) chunk += `${grams[g]}\t${ids[i]}\n`;
      if (chunk.length > 1 << 16) {
        yield chunk;
        chunk = '';
      }
    }
    if (chunk) yield chunk;
  }
  const insertRows = async (from: number, to: number) => {
    let batch: Array<{ gram: number; contact_id: number }> = [];
    for (let g = from; g < to; g++) {
      for (let i = starts[g]; i < starts[g + 1]; i++) batch.push({ gram: grams[g], contact_id: ids[i] });
      if (batch.length >= GRAM_ROWS) {
        await bulkInsert(trx, 'contact_search_grams', batch);
        batch = [];
      }
    }
    await bulkInsert(trx, 'contact_search_grams', batch);
  };
  // MySQL that allows LOAD DATA LOCAL takes them as streams of about LOAD_ROWS rows (each well
  // within DB_QUERY_TIMEOUT_MS); else, and on SQLite, multi-row INSERTs
  let loaded = dialectOf(trx) === 'mysql';
  for (let from = 0; from < grams.length; ) {
    let to = from + 1;
    while (to < grams.length && starts[to] - starts[from] < LOAD_ROWS) to++;
    if (loaded) loaded = await loadData(trx, 'contact_search_grams', ['gram', 'contact_id'], () => lines(from, to));
    if (!loaded) await insertRows(from, to);
    from = to;
  }
}

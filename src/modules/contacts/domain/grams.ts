/**
 * Trigrams for substring search, as both sides compute them: data/grams.ts writes a contact's
 * to the database, the in-memory index (search/) builds and queries its own. Pure functions of
 * text that import nothing, so that a search walk thread (search/walk-thread.ts) loads them
 * without the database layer.
 *
 * A text is lower-cased and read as code points; each position
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

/** The fields a listing's `search` matches (the search endpoint adds `mobile`). */
export const LIST_SEARCH_FIELDS = ['name', 'email', 'service_no', 'phone'] as const;
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


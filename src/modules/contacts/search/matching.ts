import { LIST_SEARCH_FIELDS, SEARCH_FIELDS, type SearchableFields } from '../domain/grams';

/**
 * What the in-memory index decides about one contact's text, whether it comes from the snapshot
 * (snapshot.ts) or was read afresh because it changed since (overlay.ts): the same tests for
 * both, so that a contact is matched and ranked alike wherever the index holds it. Its other
 * columns are tested by the filter's own conditions (domain/filters.ts predicateOf).
 */

/** Between the fields of a contact in its searchable text; a term holding it is left to SQL. */
export const SEPARATOR = '\u0000';

/**
 * A listing's `search` matches the first LISTED fields of a text (LIST_SEARCH_FIELDS is
 * SEARCH_FIELDS without the last, `mobile`): checked once, when this module loads.
 */
const LISTED: number = LIST_SEARCH_FIELDS.length;
if (LIST_SEARCH_FIELDS.some((field, i) => SEARCH_FIELDS[i] !== field)) throw new Error('LIST_SEARCH_FIELDS must begin SEARCH_FIELDS');

/** What the index keeps of a contact's searchable fields. */
export interface IndexedText {
  /** the lower-cased fields joined by SEPARATOR, the name first (SEARCH_FIELDS' order) */
  text: string;
  /** where the LISTED fields of the text end */
  listedEnd: number;
  serviceNo: string;
  email: string;
  /**
   * sortNameOfText(text), a string of its own: a slice of the text (which V8 makes for one of 13
   * characters or more) compared five times slower in the build's sort by name (columns.ts).
   */
  sortName: string;
}

export function indexedTextOf(row: SearchableFields): IndexedText {
  const fields = SEARCH_FIELDS.map((f) => (typeof row[f] === 'string' ? (row[f] as string).toLowerCase() : ''));
  const text = fields.join(SEPARATOR);
  let listedEnd = text.length;
  if (LISTED < SEARCH_FIELDS.length) {
    listedEnd = -1;
    for (let i = 0; i < LISTED; i++) listedEnd = text.indexOf(SEPARATOR, listedEnd + 1);
  }
  // the name is the first field (sortNameOfText)
  return { text, listedEnd, serviceNo: String(row.service_no).toLowerCase(), email: String(row.email), sortName: sortNameOfText(fields[0]) };
}

/** The sort name of a text's contact (data/tree/keys.ts sortNameOf: the lower-cased name, at most 255 code points). */
export function sortNameOfText(text: string): string {
  const end = text.indexOf(SEPARATOR);
  const name = end < 0 ? text : text.slice(0, end);
  // 255 UTF-16 units or fewer are 255 code points or fewer: nothing to cut
  return name.length <= 255 ? name : Array.from(name).slice(0, 255).join('');
}

/** Whether a listing's lower-cased term lies in one of the LISTED fields (a term holds no SEPARATOR, so it lies within one field). */
export function listedMatch(text: string, listedEnd: number, needle: string): boolean {
  const at = text.indexOf(needle);
  return at >= 0 && at < listedEnd;
}

/**
 * The search endpoint's rank of a contact whose text holds the term: 0 for an exact service
 * number or e-mail, 1 for a name that starts with it (the text starts with the lower-cased
 * name, and a term of at most 100 characters without SEPARATOR is a prefix of it exactly when it
 * is one of the sort name), 2 for the rest.
 */
export function searchRank(text: string, serviceNo: string, email: string, needle: string): 0 | 1 | 2 {
  return serviceNo === needle || email === needle ? 0 : text.startsWith(needle) ? 1 : 2;
}

/**
 * The snapshot keeps its texts as UTF-8, one after another in one byte array (columns.ts
 * SnapshotTexts): a million strings were some 110 MiB of V8's heap, a million objects for each
 * full collection to mark, placed in the order they were read rather than the order a search
 * walks them. UTF-8 is self-synchronizing, so a term's bytes lie in a text's bytes exactly where
 * the term lies in the text: the tests below on bytes decide what the tests on strings do.
 */

/** A lower-cased term as the snapshot's texts hold it. */
export function termBytes(needle: string): Uint8Array {
  return Buffer.from(needle, 'utf8');
}

/**
 * Whether `needle` lies in `bytes[from, to)`; `words` views the same memory 4 bytes at a time
 * (SnapshotTexts). The bytes are scanned for the term's byte at `anchor` a word at a time: a
 * word holds that byte exactly when the word XOR the byte in each lane has a zero lane, which
 * one subtraction tells for all four ("Bit Twiddling Hacks", determine if a word has a zero
 * byte); the whole term is compared where it is found. A byte at a time, the search took some
 * 240 ns a text at a million contacts. The anchor is best the term's rarest byte in the texts
 * (rarestByte): the fewer places hold it, the fewer whole comparisons. A term's first byte is
 * often a common letter of the names (an a, an m), and the walks of the bench's terms took some
 * 4% longer with it (docs/performance.md, "A term's rarest byte").
 */
export function bytesInclude(bytes: Uint8Array, words: Uint32Array, from: number, to: number, needle: Uint8Array, anchor = 0): boolean {
  const byte = needle[anchor];
  // the places the anchor can be at: the term fits in [from, to) around it
  const last = to - needle.length + anchor;
  let i = from + anchor;
  for (; i <= last && (i & 3) !== 0; i++) if (bytes[i] === byte && bytesAt(bytes, i - anchor, needle)) return true;
  const lanes = Math.imul(byte, 0x01010101);
  for (; i <= last; i += 4) {
    const x = words[i >>> 2] ^ lanes;
    if (((x - 0x01010101) & ~x & 0x80808080) === 0) continue;
    for (let k = i, end = Math.min(i + 3, last); k <= end; k++) if (bytes[k] === byte && bytesAt(bytes, k - anchor, needle)) return true;
  }
  return false;
}

/**
 * Where in a term's bytes its rarest byte is, by how often each byte value came up in the
 * texts (SnapshotTexts byteCounts): the anchor that bytesInclude scans for.
 */
export function rarestByte(needle: Uint8Array, byteCounts: Uint32Array): number {
  let rarest = 0;
  for (let k = 1; k < needle.length; k++) if (byteCounts[needle[k]] < byteCounts[needle[rarest]]) rarest = k;
  return rarest;
}

/**
 * How often each byte value comes up in `bytes`, from a sample of some million bytes spread
 * evenly over them (every byte of a smaller buffer): what rarestByte ranks a term's bytes by.
 */
export function byteCountsOf(bytes: Uint8Array, into: Uint32Array): Uint32Array {
  const step = Math.max(1, Math.floor(bytes.length / 1_000_000));
  for (let i = 0; i < bytes.length; i += step) into[bytes[i]]++;
  return into;
}

/** Whether `bytes` hold `needle` at `at` (the caller knows it fits before the text's end). */
function bytesAt(bytes: Uint8Array, at: number, needle: Uint8Array): boolean {
  for (let k = 0; k < needle.length; k++) if (bytes[at + k] !== needle[k]) return false;
  return true;
}

/**
 * searchRank for a contact of the snapshot, which keeps its text but not its service number and
 * e-mail apart: those are the text's second and third fields, lower-cased, at `starts`
 * (fieldStarts, from the text's `start` in `bytes`). A lower-cased term equals the stored e-mail
 * exactly when it equals the lower-cased one and the stored one has no capitals (`emailLower`).
 * The lengths are compared first: most matches are no exact one. The name, the text's first
 * field, starts with the term when the text does (the term holds no SEPARATOR).
 */
export function textRank(bytes: Uint8Array, start: number, starts: FieldStarts, emailLower: boolean, needle: Uint8Array): 0 | 1 | 2 {
  const { email, service, phone } = starts;
  const n = needle.length;
  if (phone - 1 - service === n && bytesAt(bytes, start + service, needle)) return 0;
  if (emailLower && service - 1 - email === n && bytesAt(bytes, start + email, needle)) return 0;
  // the name and its separator are at least as long as the term, or the separator differs first
  return n < email && bytesAt(bytes, start, needle) ? 1 : 2;
}

/** Where the e-mail, the service number and the phone start in a text's bytes (each field ends one before the next starts). */
export interface FieldStarts {
  email: number;
  service: number;
  phone: number;
}

/**
 * Where the fields of the text in `bytes[start, end)` start (FieldStarts), and where its LISTED
 * fields end (IndexedText listedEnd), from its start. A zero byte is always a separator in UTF-8.
 */
export function fieldsOfBytes(bytes: Uint8Array, start: number, end: number): FieldStarts & { listedEnd: number } {
  const separators: number[] = [];
  for (let i = start; i < end && separators.length < SEARCH_FIELDS.length - 1; i++) if (bytes[i] === 0) separators.push(i - start);
  return { email: separators[0] + 1, service: separators[1] + 1, phone: separators[2] + 1, listedEnd: LISTED < SEARCH_FIELDS.length ? separators[LISTED - 1] : end - start };
}

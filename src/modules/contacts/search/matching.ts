import { LIST_SEARCH_FIELDS } from '../data/candidates';
import { SEARCH_FIELDS, type SearchableFields } from '../data/grams';

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
 * searchRank for a contact of the snapshot, which keeps its text but not its service number and
 * e-mail apart (a million contacts' strings are some 80 MiB): those are the text's second and
 * third fields, lower-cased, at `starts` (fieldStarts). A lower-cased term equals the stored
 * e-mail exactly when it equals the lower-cased one and the stored one has no capitals
 * (`emailLower`). The lengths are compared first: most matches are no exact one.
 */
export function textRank(text: string, starts: FieldStarts, emailLower: boolean, needle: string): 0 | 1 | 2 {
  const { email, service, phone } = starts;
  const n = needle.length;
  if (phone - 1 - service === n && text.startsWith(needle, service)) return 0;
  if (emailLower && service - 1 - email === n && text.startsWith(needle, email)) return 0;
  return text.startsWith(needle) ? 1 : 2;
}

/** Where the e-mail, the service number and the phone start in a text (each field ends one before the next starts). */
export interface FieldStarts {
  email: number;
  service: number;
  phone: number;
}

export function fieldStartsOf(text: string): FieldStarts {
  const email = text.indexOf(SEPARATOR) + 1;
  const service = text.indexOf(SEPARATOR, email) + 1;
  return { email, service, phone: text.indexOf(SEPARATOR, service) + 1 };
}

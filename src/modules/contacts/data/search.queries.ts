import type { Queryable } from '../../../lib/db';
import { compareCodePoints } from '../../../lib/text';
import { applyFilters } from './listing.queries';
import { sortNameOf } from './tree/keys';
import { containsTerm, joinCandidates } from './candidates';
import { SEARCH_FIELDS } from '../domain/grams';
import type { ContactFilters } from '../domain/filters';

/**
 * The search endpoint's matches in SQL, ranked (exact service number or e-mail, then name
 * prefix, then by name), as ids of the first `limit` and the total. The index gives the
 * candidates and the filters apply in the query; the check and the ranking run here, with
 * JavaScript's lower-casing on both databases, as the in-memory index does (MySQL's LOWER()
 * folds some letters differently: Greek final sigma, dotted I, Georgian), so that a search
 * answers the same whichever of the two serves it.
 */
export async function rankedSearch(
  db: Queryable,
  f: ContactFilters & { search: string },
  limit: number,
): Promise<{ ids: number[]; total: number }> {
  const needle = f.search.toLowerCase();
  const rank = (r: Record<string, unknown>) =>
    String(r.service_no).toLowerCase() === needle || String(r.email) === needle ? 0 : String(r.name).toLowerCase().startsWith(needle) ? 1 : 2;
  // no order and no tree columns: only what the check and the ranking need
  const q = applyFilters(db('users as u'), f).select(['u.id', ...SEARCH_FIELDS.map((c) => `u.${c}`)]);
  const rows: Record<string, unknown>[] = await joinCandidates(q, db, f.search);
  const matches = rows
    .filter((r) => containsTerm(r, f.search, SEARCH_FIELDS))
    .map((r) => ({ id: Number(r.id), rank: rank(r), sort_name: sortNameOf(String(r.name)) }))
    .sort((a, b) => a.rank - b.rank || compareCodePoints(a.sort_name, b.sort_name) || a.id - b.id);
  return { ids: matches.slice(0, limit).map((m) => m.id), total: matches.length };
}

import type { Knex } from 'knex';
import type { Queryable } from '../../../lib/db';
import { candidateIds } from './grams';

/** The fields a listing's `search` matches (the search endpoint adds `mobile`: grams.ts SEARCH_FIELDS). */
export const LIST_SEARCH_FIELDS = ['name', 'email', 'service_no', 'phone'] as const;

/**
 * Narrows a query on `users as u` to the candidates of `term` from the trigram table; the
 * caller keeps the rows that `containsTerm` accepts (the table gives a superset).
 */
export function joinCandidates(q: Knex.QueryBuilder, db: Queryable, term: string): Knex.QueryBuilder {
  // a single character has no trigram: the caller's check over the filtered set decides alone
  if (Array.from(term).length < 2) return q;
  return q.join(candidateIds(db, term).as('c'), 'c.contact_id', 'u.id');
}

/** Case-insensitive substring test on the given fields; every character of the term is literal. */
export function containsTerm(row: Record<string, unknown>, term: string, fields: readonly string[]): boolean {
  const needle = term.toLowerCase();
  return fields.some((f) => typeof row[f] === 'string' && (row[f] as string).toLowerCase().includes(needle));
}

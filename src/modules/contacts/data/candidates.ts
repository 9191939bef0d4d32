import type { Knex } from 'knex';
import type { Queryable } from '../../../lib/db';
import { gramQueryOf } from '../domain/grams';
import { BACKLOG_TABLE } from './grams';

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

/** At most this many of a term's trigrams are joined; the LIKE check after keeps the result exact. */
const MAX_JOINED_GRAMS = 3;

/** Up to `max` grams spread over the term, the first and the last among them. */
function spread(grams: number[], max: number): number[] {
  if (grams.length <= max) return grams;
  return Array.from({ length: max }, (_, i) => grams[Math.round((i * (grams.length - 1)) / (max - 1))]);
}

/**
 * Contact ids whose indexed text holds the term's grams, and every contact of the search
 * backlog (new contacts whose grams are not written yet: backlog.ts): a superset of the
 * matches. The grams are a self-join on the primary key (gram, contact_id), so the database
 * starts from the rarest posting list (its row estimate) and checks the others by key, instead
 * of reading every posting list whole.
 */
export function candidateIds(db: Knex | Knex.Transaction, term: string): Knex.QueryBuilder {
  const backlog = db(BACKLOG_TABLE).select('contact_id');
  const q = gramQueryOf(term);
  if (q.kind === 'prefix') {
    // UNION keeps each contact once
    return db('contact_search_grams').select('contact_id').whereBetween('gram', [q.from, q.to]).union(backlog);
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
  // (knex writes a UNION before a GROUP BY of the same query: the grouped one is a table of its own)
  return db.select('contact_id').from(query.groupBy('g0.contact_id').as('g')).union(backlog);
}

import type { Knex } from 'knex';

/** A LIKE pattern matching `term` anywhere, with %, _ and the escape character taken literally. */
function containsPattern(term: string): string {
  return `%${term.toLowerCase().replace(/[!%_]/g, (c) => `!${c}`)}%`;
}

/** Adds `LOWER(column) LIKE '%term%'` (case-insensitive, wildcards literal) to a query. */
export function whereContains(query: Knex.QueryBuilder, columns: string[], term: string): Knex.QueryBuilder {
  const pattern = containsPattern(term);
  return query.where((q) => {
    for (const column of columns) q.orWhereRaw(`LOWER(??) LIKE ? ESCAPE '!'`, [column, pattern]);
  });
}


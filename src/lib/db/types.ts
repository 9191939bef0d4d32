import type { Knex } from 'knex';

export type Db = Knex;
/** A query helper takes either the knex instance or an open transaction. */
export type Queryable = Knex | Knex.Transaction;
export type Dialect = 'mysql' | 'sqlite';

export function dialectOf(db: Queryable): Dialect {
  const name = db.client.config.client as string;
  return name === 'mysql2' || name === 'mysql' ? 'mysql' : 'sqlite';
}

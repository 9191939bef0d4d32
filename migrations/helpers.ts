import type { Knex } from 'knex';

export function isMysql(knex: Knex): boolean {
  const client = knex.client.config.client as string;
  return client === 'mysql2' || client === 'mysql';
}

/**
 * Creates a table the same way on both databases: on MySQL InnoDB, utf8mb4 with a binary
 * collation, so that names compare exactly as given, as SQLite compares them.
 */
export function createTable(knex: Knex, name: string, build: (t: Knex.CreateTableBuilder) => void) {
  return knex.schema.createTable(name, (t) => {
    if (isMysql(knex)) {
      t.engine('InnoDB');
      t.charset('utf8mb4');
      t.collate('utf8mb4_bin');
    }
    build(t);
  });
}

/** The current time as a column default: DATETIME(3) in UTC on MySQL, epoch milliseconds on SQLite. */
export function now(knex: Knex): Knex.Raw {
  return isMysql(knex)
    ? knex.raw('CURRENT_TIMESTAMP(3)')
    : knex.raw("(CAST(ROUND((julianday('now') - 2440587.5) * 86400000) AS INTEGER))");
}

export function timestamp(t: Knex.CreateTableBuilder, knex: Knex, name: string): Knex.ColumnBuilder {
  return t.datetime(name, { precision: 3 }).notNullable().defaultTo(now(knex));
}

export function timestamps(t: Knex.CreateTableBuilder, knex: Knex): void {
  timestamp(t, knex, 'created_at');
  timestamp(t, knex, 'updated_at');
}

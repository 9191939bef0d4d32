import type { Knex } from 'knex';
import { createTable } from './helpers';

/**
 * Versions of what reads show, beside the directory's own (directory_state): each counter goes
 * up in the transaction of every change of what it covers, so a read's ETag is built from
 * versions instead of a hash of its body (docs/api.md, Conditional requests). One row each, so
 * a sign-in bumping `account` never waits for the directory lock that an import holds.
 *
 * - `account`: user-row changes made outside the directory lock (a sign-in's status and
 *   last_seen, a password change's updated_at);
 * - `reference`: units, departments, designations, ranks, roles, organizations;
 * - `locations`: countries, divisions, districts, thanas.
 */
export const READ_VERSIONS = ['account', 'reference', 'locations'];

export async function up(knex: Knex): Promise<void> {
  await createTable(knex, 'read_versions', (t) => {
    t.string('name', 32).primary();
    t.bigInteger('version').unsigned().notNullable().defaultTo(0);
  });
  await knex('read_versions').insert(READ_VERSIONS.map((name) => ({ name, version: 0 })));
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('read_versions');
}

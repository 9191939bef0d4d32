import type { Knex } from 'knex';
import { createTable } from './helpers';

/**
 * One row. Every transaction that changes the directory's tree locks it first, which
 * serializes tree changes (no two moves can build a cycle between them), and bumps `version`,
 * which lets readers cache what they computed from an unchanged directory.
 */
export async function up(knex: Knex): Promise<void> {
  await createTable(knex, 'directory_state', (t) => {
    t.integer('id').unsigned().primary();
    t.bigInteger('version').notNullable().defaultTo(0);
  });
  await knex('directory_state').insert({ id: 1, version: 0 });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('directory_state');
}

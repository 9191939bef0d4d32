import type { Knex } from 'knex';
import { createTable, timestamps } from './helpers';

export async function up(knex: Knex): Promise<void> {
  await createTable(knex, 'organizations', (t) => {
    t.increments('id');
    t.string('name', 150).notNullable().unique();
    t.string('code', 30).nullable().unique();
    timestamps(t, knex);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('organizations');
}

import type { Knex } from 'knex';
import { createTable, timestamps } from './helpers';

export async function up(knex: Knex): Promise<void> {
  await createTable(knex, 'units', (t) => {
    t.increments('id');
    t.string('name', 150).notNullable().unique();
    t.string('code', 30).nullable().unique();
    // A unit tree; a unit that still has child units cannot be removed (RESTRICT).
    t.integer('parent_id').unsigned().nullable().references('id').inTable('units').onDelete('RESTRICT').onUpdate('CASCADE');
    t.string('description', 500).nullable();
    timestamps(t, knex);
    t.index(['parent_id']);
  });
  await createTable(knex, 'departments', (t) => {
    t.increments('id');
    t.integer('unit_id').unsigned().notNullable().references('id').inTable('units').onDelete('RESTRICT').onUpdate('CASCADE');
    t.string('name', 150).notNullable();
    t.string('code', 30).nullable();
    timestamps(t, knex);
    t.unique(['unit_id', 'name']);
  });
  await createTable(knex, 'designations', (t) => {
    t.increments('id');
    t.string('name', 150).notNullable().unique();
    t.string('code', 30).nullable().unique();
    timestamps(t, knex);
  });
  await createTable(knex, 'ranks', (t) => {
    t.increments('id');
    t.string('name', 100).notNullable().unique();
    t.string('code', 30).nullable().unique();
    // Seniority: 1 is the most senior; lists of ranks are ordered by it.
    t.integer('level').unsigned().notNullable().defaultTo(0);
    timestamps(t, knex);
    t.index(['level']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('ranks');
  await knex.schema.dropTable('designations');
  await knex.schema.dropTable('departments');
  await knex.schema.dropTable('units');
}

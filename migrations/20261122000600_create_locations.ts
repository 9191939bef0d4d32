import type { Knex } from 'knex';
import { createTable, timestamps } from './helpers';

/**
 * Country > division > district > thana. A parent's removal or re-keying removes or updates
 * its children (spec 2.5); the API itself only soft-deletes (is_active = 0).
 */
export async function up(knex: Knex): Promise<void> {
  await createTable(knex, 'countries', (t) => {
    t.increments('id');
    t.string('name', 100).notNullable().unique();
    t.string('code', 20).nullable();
    t.boolean('is_active').notNullable().defaultTo(true);
    timestamps(t, knex);
    t.index(['is_active', 'name']);
  });
  const levels = [
    ['divisions', 'country_id', 'countries'],
    ['districts', 'division_id', 'divisions'],
    ['thanas', 'district_id', 'districts'],
  ] as const;
  for (const [table, parentKey, parentTable] of levels) {
    await createTable(knex, table, (t) => {
      t.increments('id');
      t.integer(parentKey).unsigned().notNullable()
        .references('id').inTable(parentTable).onDelete('CASCADE').onUpdate('CASCADE');
      t.string('name', 100).notNullable();
      t.string('code', 20).nullable();
      t.boolean('is_active').notNullable().defaultTo(true);
      timestamps(t, knex);
      t.unique([parentKey, 'name']);
      t.index(['is_active', 'name']);
    });
  }
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('thanas');
  await knex.schema.dropTable('districts');
  await knex.schema.dropTable('divisions');
  await knex.schema.dropTable('countries');
}

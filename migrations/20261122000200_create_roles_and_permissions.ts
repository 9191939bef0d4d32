import type { Knex } from 'knex';
import { createTable, timestamps } from './helpers';

export async function up(knex: Knex): Promise<void> {
  await createTable(knex, 'roles', (t) => {
    t.increments('id');
    t.string('name', 50).notNullable().unique();
    t.string('description', 255).nullable();
    timestamps(t, knex);
  });
  await createTable(knex, 'permissions', (t) => {
    t.increments('id');
    t.string('name', 100).notNullable().unique();
    t.string('description', 255).nullable();
  });
  await createTable(knex, 'role_permissions', (t) => {
    t.integer('role_id').unsigned().notNullable().references('id').inTable('roles').onDelete('CASCADE').onUpdate('CASCADE');
    t.integer('permission_id').unsigned().notNullable()
      .references('id').inTable('permissions').onDelete('CASCADE').onUpdate('CASCADE');
    t.primary(['role_id', 'permission_id']);
    t.index(['permission_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('role_permissions');
  await knex.schema.dropTable('permissions');
  await knex.schema.dropTable('roles');
}

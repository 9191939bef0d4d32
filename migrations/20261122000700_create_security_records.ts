import type { Knex } from 'knex';
import { createTable, timestamp } from './helpers';

export async function up(knex: Knex): Promise<void> {
  // Failed sign-ins outlive their organization: its removal sets organization_id to null.
  await createTable(knex, 'failed_login_attempts', (t) => {
    t.bigIncrements('id');
    t.string('login_id', 100).nullable();
    t.integer('organization_id').unsigned().nullable()
      .references('id').inTable('organizations').onDelete('SET NULL').onUpdate('CASCADE');
    t.string('ip_address', 45).nullable();
    t.text('user_agent').nullable();
    timestamp(t, knex, 'attempted_at');
    t.string('reason', 255).notNullable().defaultTo('Invalid credentials');
    t.index(['organization_id', 'attempted_at']);
    t.index(['login_id', 'attempted_at']);
    t.index(['ip_address', 'attempted_at']);
    t.index(['attempted_at']);
  });
  // Password changes go with their organization, their user or the user who made the change.
  await createTable(knex, 'password_change_logs', (t) => {
    t.bigIncrements('id');
    t.integer('user_id').unsigned().notNullable().references('id').inTable('users').onDelete('CASCADE').onUpdate('CASCADE');
    t.integer('changed_by').unsigned().notNullable()
      .references('id').inTable('users').onDelete('CASCADE').onUpdate('CASCADE');
    t.integer('organization_id').unsigned().notNullable().defaultTo(1)
      .references('id').inTable('organizations').onDelete('CASCADE').onUpdate('CASCADE');
    t.string('ip_address', 45).nullable();
    t.text('user_agent').nullable();
    timestamp(t, knex, 'changed_at');
    t.enu('change_type', ['self', 'admin_reset', 'forced']).notNullable().defaultTo('self');
    t.index(['organization_id', 'changed_at']);
    t.index(['user_id', 'changed_at']);
    t.index(['changed_by']);
    t.index(['changed_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('password_change_logs');
  await knex.schema.dropTable('failed_login_attempts');
}

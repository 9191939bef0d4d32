import type { Knex } from 'knex';
import { createTable, timestamps } from './helpers';

/**
 * Users are the contacts of the directory. Besides the fields of the specification they hold
 * the directory's pre-order: `tree_ord` is an order key (ORDER BY tree_ord is the depth-first
 * order of the whole directory, siblings by `sort_name` then id) and `depth` the level, both
 * kept up to date by every tree change (see src/modules/contacts/tree/order.ts).
 */
export async function up(knex: Knex): Promise<void> {
  await createTable(knex, 'users', (t) => {
    t.increments('id');
    t.string('name', 255).notNullable();
    // name in lower case (at most 255 code points): the sibling order. Binary on MySQL, so it
    // compares byte by byte (UTF-8 order is code point order) with no trailing-space padding,
    // exactly as SQLite compares text.
    t.binary('sort_name', 1020).notNullable();
    t.string('email', 255).notNullable().unique();
    t.string('service_no', 50).notNullable().unique();
    t.string('password_hash', 255).nullable();
    t.string('phone', 20).nullable();
    t.string('mobile', 20).nullable();
    t.string('alternative_mobile', 20).nullable();
    t.integer('rank_id').unsigned().nullable().references('id').inTable('ranks').onDelete('RESTRICT').onUpdate('CASCADE');
    t.integer('unit_id').unsigned().notNullable().references('id').inTable('units').onDelete('RESTRICT').onUpdate('CASCADE');
    t.integer('department_id').unsigned().nullable()
      .references('id').inTable('departments').onDelete('RESTRICT').onUpdate('CASCADE');
    t.integer('designation_id').unsigned().notNullable()
      .references('id').inTable('designations').onDelete('RESTRICT').onUpdate('CASCADE');
    t.integer('parent_id').unsigned().nullable().references('id').inTable('users').onDelete('SET NULL').onUpdate('CASCADE');
    t.integer('role_id').unsigned().notNullable().defaultTo(3)
      .references('id').inTable('roles').onDelete('RESTRICT').onUpdate('CASCADE');
    t.integer('organization_id').unsigned().notNullable().defaultTo(1)
      .references('id').inTable('organizations').onDelete('RESTRICT').onUpdate('CASCADE');
    t.string('branch', 100).nullable();
    t.string('sub_branch', 100).nullable();
    t.string('avatar', 500).nullable();
    t.enu('status', ['online', 'offline', 'busy']).notNullable().defaultTo('offline');
    t.datetime('last_seen', { precision: 3 }).nullable();
    t.boolean('is_active').notNullable().defaultTo(true);
    t.integer('token_version').unsigned().notNullable().defaultTo(0);
    t.bigInteger('tree_ord').notNullable().defaultTo(0);
    t.integer('depth').unsigned().notNullable().defaultTo(0);
    timestamps(t, knex);

    // siblings in order (active or not, for the tree's order keys)
    t.index(['parent_id', 'sort_name', 'id']);
    // a node's active children, counted and paged from the index alone
    t.index(['parent_id', 'is_active', 'sort_name', 'id']);
    // the pre-order, with depth to find where a subtree ends without reading rows
    t.index(['tree_ord', 'depth']);
    // pages of the pre-order, filtered
    t.index(['is_active', 'tree_ord']);
    t.index(['unit_id', 'is_active', 'tree_ord']);
    t.index(['department_id', 'is_active', 'tree_ord']);
    t.index(['role_id', 'is_active', 'tree_ord']);
    t.index(['designation_id']);
    t.index(['rank_id']);
    t.index(['organization_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('users');
}

import type { Knex } from 'knex';
import { createTable, timestamp } from './helpers';

/**
 * The audit trail (docs/audit.md): one row per administrative change, written in the change's
 * own transaction, and never updated. No foreign keys: an entry outlives its actor, its target
 * and its organization, as an audit must.
 *
 * Reads are newest first, `at DESC, id DESC`, narrowed by the caller's organization and at most
 * one more column: each narrowing has an index that ends in `at` (and InnoDB and SQLite add the
 * primary key after it), so page 1 is an index range read whatever the table's size.
 */
export async function up(knex: Knex): Promise<void> {
  await createTable(knex, 'audit_events', (t) => {
    t.bigIncrements('id');
    timestamp(t, knex, 'at');
    t.integer('actor_id').unsigned().nullable();
    t.string('actor_role', 50).nullable();
    t.integer('organization_id').unsigned().nullable();
    t.string('action', 64).notNullable();
    t.string('target_type', 32).notNullable();
    t.bigInteger('target_id').unsigned().nullable();
    // {field: [before, after]} and, for bulk changes and imports, what they touched: JSON text
    t.text('changes', 'mediumtext').notNullable();
    t.text('details', 'mediumtext').nullable();
    t.string('request_id', 128).nullable();
    t.string('ip_address', 45).nullable();
    t.text('user_agent').nullable();
    t.index(['at']);
    t.index(['organization_id', 'at']);
    t.index(['actor_id', 'at']);
    t.index(['action', 'at']);
    t.index(['target_type', 'at']);
  });
  // the targets of each entry, so that a contact's history finds it in a bulk change too
  await createTable(knex, 'audit_event_targets', (t) => {
    t.bigInteger('event_id').unsigned().notNullable();
    t.string('target_type', 32).notNullable();
    t.bigInteger('target_id').unsigned().notNullable();
    t.primary(['target_type', 'target_id', 'event_id']);
    t.index(['event_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('audit_event_targets');
  await knex.schema.dropTable('audit_events');
}

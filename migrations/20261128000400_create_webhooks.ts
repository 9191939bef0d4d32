import type { Knex } from 'knex';
import { createTable, timestamp, timestamps } from './helpers';

/**
 * Signed webhooks (docs/changes.md, Webhooks). The outbox is the change feed itself
 * (contact_changes, written in each change's own transaction): a dispatcher fans the feed out
 * into deliveries after the commit, so nothing is added to the write path.
 *
 * - `webhooks`: a subscription. `organization_id` null is a Super_admin's hook for every
 *   organization. `after_version`: the directory version when it was made; it gets the changes
 *   after it only. `secret` signs; `previous_secret` too until `previous_secret_expires_at`
 *   (a rotation). `failing_since` starts at the first failure after a success; a hook that
 *   keeps failing for WEBHOOK_DISABLE_AFTER_DAYS is made inactive with `disabled_reason`.
 * - `webhook_deliveries`: one per event per hook, with the exact body it sends (a retry sends
 *   the same bytes) and the `webhook-id` (`event_id`), the same on every retry. Claimed by
 *   moving `next_attempt_at` forward to `locked_until` (a lease): the index
 *   (status, next_attempt_at) is the queue.
 * - `webhook_attempts`: each try, for GET /api/webhooks/:id/deliveries. Finished deliveries
 *   (delivered, failed) go with their attempts after CHANGES_RETENTION_DAYS, as the feed's rows do.
 * - `webhook_state`: one row, how far the feed has been fanned out.
 */
export async function up(knex: Knex): Promise<void> {
  await createTable(knex, 'webhooks', (t) => {
    t.increments('id').primary();
    t.integer('organization_id').unsigned().nullable().references('id').inTable('organizations');
    t.string('url', 2048).notNullable();
    // a JSON array of event patterns: contact.created, contact.*, ...
    t.text('events').notNullable();
    t.string('description', 255).nullable();
    t.string('secret', 128).notNullable();
    t.string('previous_secret', 128).nullable();
    t.datetime('previous_secret_expires_at', { precision: 3 }).nullable();
    t.boolean('active').notNullable().defaultTo(true);
    t.string('disabled_reason', 255).nullable();
    t.datetime('disabled_at', { precision: 3 }).nullable();
    t.datetime('failing_since', { precision: 3 }).nullable();
    t.bigInteger('after_version').unsigned().notNullable().defaultTo(0);
    t.integer('created_by').unsigned().nullable();
    timestamps(t, knex);
    t.index(['organization_id']);
  });
  await createTable(knex, 'webhook_deliveries', (t) => {
    t.bigIncrements('id').primary();
    t.integer('webhook_id').unsigned().notNullable().references('id').inTable('webhooks').onDelete('CASCADE');
    t.string('event_id', 128).notNullable();
    t.string('type', 64).notNullable();
    t.text('payload', 'mediumtext').notNullable();
    // pending, delivered, failed
    t.string('status', 16).notNullable();
    t.integer('attempts').unsigned().notNullable().defaultTo(0);
    t.datetime('next_attempt_at', { precision: 3 }).nullable();
    t.datetime('locked_until', { precision: 3 }).nullable();
    timestamp(t, knex, 'created_at');
    t.index(['status', 'next_attempt_at']);
    // pruning: the finished deliveries older than the retention
    t.index(['status', 'created_at']);
    t.index(['webhook_id', 'id']);
    t.unique(['webhook_id', 'event_id']);
  });
  await createTable(knex, 'webhook_attempts', (t) => {
    t.bigIncrements('id').primary();
    t.bigInteger('delivery_id').unsigned().notNullable().references('id').inTable('webhook_deliveries').onDelete('CASCADE');
    timestamp(t, knex, 'attempted_at');
    // delivered, failed
    t.string('status', 16).notNullable();
    t.integer('response_code').nullable();
    t.integer('duration_ms').unsigned().notNullable();
    t.string('error', 255).nullable();
    t.index(['delivery_id', 'id']);
  });
  await createTable(knex, 'webhook_state', (t) => {
    t.integer('id').unsigned().primary();
    t.bigInteger('after_version').unsigned().notNullable();
    t.bigInteger('after_contact_id').unsigned().notNullable();
  });
  // from the directory's version now: a database that already has a feed does not fan out its past
  const state = await knex('directory_state').where({ id: 1 }).first('version');
  await knex('webhook_state').insert({ id: 1, after_version: Number(state?.version ?? 0), after_contact_id: 4_294_967_295 });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('webhook_state');
  await knex.schema.dropTable('webhook_attempts');
  await knex.schema.dropTable('webhook_deliveries');
  await knex.schema.dropTable('webhooks');
}

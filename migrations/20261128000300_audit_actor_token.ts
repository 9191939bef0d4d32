import type { Knex } from 'knex';
import { isMysql } from './helpers';

/** The API token that made a change (its actor_id is then null): the trail's second kind of actor. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('audit_events', (t) => {
    t.integer('actor_token_id').unsigned().nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  if (isMysql(knex)) await knex.schema.alterTable('audit_events', (t) => t.dropColumn('actor_token_id'));
  else await knex.raw('ALTER TABLE audit_events DROP COLUMN actor_token_id');
}

import type { Knex } from 'knex';

/**
 * Covering indexes for the failed-login summaries: the reason, login id and address grouped
 * over a time window (and an organization) come from the index alone, not from a million rows.
 * The narrower (organization_id, attempted_at) and (attempted_at) stay: they give the pages
 * their order, newest first with the id as tie-break.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('failed_login_attempts', (t) => {
    t.index(['organization_id', 'attempted_at', 'reason', 'login_id', 'ip_address'], 'failed_login_attempts_org_time_cover');
    t.index(['attempted_at', 'reason', 'login_id', 'ip_address'], 'failed_login_attempts_time_cover');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('failed_login_attempts', (t) => {
    t.dropIndex([], 'failed_login_attempts_org_time_cover');
    t.dropIndex([], 'failed_login_attempts_time_cover');
  });
}

import type { Knex } from 'knex';
import { isMysql } from './helpers';

/**
 * What an identity provider knows a contact by (SCIM's externalId), unique within an
 * organization (NULLs repeat freely on both databases), and when the provider deleted the
 * contact (SCIM DELETE): such a contact is inactive like any deleted one, and is no longer a
 * SCIM resource (404), while one the provider only deactivated (`active: false`) still is.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('users', (t) => {
    t.string('external_id', 255).nullable();
    t.datetime('deprovisioned_at', { precision: 3 }).nullable();
    t.unique(['organization_id', 'external_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('users', (t) => t.dropUnique(['organization_id', 'external_id']));
  if (isMysql(knex)) {
    await knex.schema.alterTable('users', (t) => {
      t.dropColumn('external_id');
      t.dropColumn('deprovisioned_at');
    });
  } else {
    await knex.raw('ALTER TABLE users DROP COLUMN external_id');
    await knex.raw('ALTER TABLE users DROP COLUMN deprovisioned_at');
  }
}

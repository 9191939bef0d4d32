import type { Knex } from 'knex';
import { createTable, timestamp } from './helpers';

/**
 * API tokens: the credentials of machine clients (an identity provider's SCIM connection). Only
 * the SHA-256 of the secret is kept: a secret is 256 random bits, so nobody can guess one from
 * its hash and a fast hash is enough (a password needs bcrypt because people choose guessable
 * ones). `prefix` is the secret's first characters, shown so an Admin can tell tokens apart.
 * `scim_defaults` (JSON text) holds the unit, department, designation and rank given to the users
 * the identity provider creates without them.
 */
export async function up(knex: Knex): Promise<void> {
  await createTable(knex, 'api_tokens', (t) => {
    t.increments('id');
    t.string('name', 100).notNullable();
    t.string('scopes', 255).notNullable();
    t.integer('organization_id').unsigned().notNullable()
      .references('id').inTable('organizations').onDelete('RESTRICT').onUpdate('CASCADE');
    t.string('token_hash', 64).notNullable().unique();
    t.string('prefix', 16).notNullable();
    t.text('scim_defaults').nullable();
    t.integer('created_by').unsigned().nullable();
    timestamp(t, knex, 'created_at');
    t.datetime('expires_at', { precision: 3 }).nullable();
    t.datetime('last_used_at', { precision: 3 }).nullable();
    t.datetime('revoked_at', { precision: 3 }).nullable();
    t.index(['organization_id', 'id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('api_tokens');
}

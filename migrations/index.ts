import type { Knex } from 'knex';
import * as organizations from './20261122000100_create_organizations';
import * as rolesAndPermissions from './20261122000200_create_roles_and_permissions';
import * as referenceTables from './20261122000300_create_reference_tables';
import * as users from './20261122000400_create_users';
import * as directoryState from './20261122000500_create_directory_state';
import * as locations from './20261122000600_create_locations';
import * as securityRecords from './20261122000700_create_security_records';
import * as contactSearchGrams from './20261122000800_create_contact_search_grams';
import * as failedLoginSummaries from './20261122000900_index_failed_login_summaries';
import * as rolePermissionNames from './20261122001000_role_permission_names';
import * as directorySearchVersion from './20261122001100_directory_search_version';
import * as auditEvents from './20261125000100_create_audit_events';
import * as readVersions from './20261125000200_create_read_versions';
import * as searchBacklog from './20261125000300_create_contact_search_backlog';
import * as changeVersion from './20261126000100_users_change_version';
import * as contactChanges from './20261127000100_create_contact_changes';
import * as changesPrunedThrough from './20261127000200_directory_changes_pruned_through';
import * as apiTokens from './20261128000100_create_api_tokens';
import * as usersExternalId from './20261128000200_users_external_id';
import * as auditActorToken from './20261128000300_audit_actor_token';
import * as webhooks from './20261128000400_create_webhooks';
import * as apiTokensCanDeactivate from './20261128000500_api_tokens_can_deactivate';

interface Migration {
  up(knex: Knex): Promise<void>;
  down(knex: Knex): Promise<void>;
}

/**
 * The migrations in order. Listed here rather than read from the folder, so the same code runs
 * from TypeScript (tests, knex CLI) and from the compiled JavaScript (npm start, Docker).
 * The names are what knex_migrations records; never rename one that has shipped.
 */
const MIGRATIONS: ReadonlyArray<readonly [string, Migration]> = [
  ['20261122000100_create_organizations', organizations],
  ['20261122000200_create_roles_and_permissions', rolesAndPermissions],
  ['20261122000300_create_reference_tables', referenceTables],
  ['20261122000400_create_users', users],
  ['20261122000500_create_directory_state', directoryState],
  ['20261122000600_create_locations', locations],
  ['20261122000700_create_security_records', securityRecords],
  ['20261122000800_create_contact_search_grams', contactSearchGrams],
  ['20261122000900_index_failed_login_summaries', failedLoginSummaries],
  ['20261122001000_role_permission_names', rolePermissionNames],
  ['20261122001100_directory_search_version', directorySearchVersion],
  ['20261125000100_create_audit_events', auditEvents],
  ['20261125000200_create_read_versions', readVersions],
  ['20261125000300_create_contact_search_backlog', searchBacklog],
  ['20261126000100_users_change_version', changeVersion],
  ['20261127000100_create_contact_changes', contactChanges],
  ['20261127000200_directory_changes_pruned_through', changesPrunedThrough],
  ['20261128000100_create_api_tokens', apiTokens],
  ['20261128000200_users_external_id', usersExternalId],
  ['20261128000300_audit_actor_token', auditActorToken],
  ['20261128000400_create_webhooks', webhooks],
  ['20261128000500_api_tokens_can_deactivate', apiTokensCanDeactivate],
];

export const migrationSource: Knex.MigrationSource<readonly [string, Migration]> = {
  getMigrations: async () => [...MIGRATIONS],
  getMigrationName: ([name]) => name,
  getMigration: async ([, migration]) => migration,
};

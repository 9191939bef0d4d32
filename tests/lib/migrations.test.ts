import { MIGRATIONS } from '../../src/startup';
import { openOwnSeededDb } from '../helpers/context';

/**
 * The newest migrations go down and up again on a seeded database (users and grants in
 * place) without losing a grant. On MySQL in a database of its own, dropped after.
 */
test('the thirteen newest migrations go down (api_tokens.can_deactivate, the webhooks\' tables, audit_events.actor_token_id, users.external_id and deprovisioned_at, api_tokens, directory_state.changes_pruned_through, contact_changes, users.change_version, contact_search_backlog, read_versions, audit_events, directory_state.search_version, then role_permission_names keeping every grant) and up again', async () => {
  const { db, done } = await openOwnSeededDb('migrations');
  try {
    const grants = await db('role_permissions').orderBy(['role_id', 'permission_id']).select('role_id', 'permission_id');
    const names = await db('roles').orderBy('id').select('id', 'permission_names');
    expect(grants.length).toBeGreaterThan(10);
    expect(names.every((r) => String(r.permission_names).length > 0)).toBe(true);
    expect(await db('users').count({ n: '*' })).not.toEqual([{ n: 0 }]);

    // the newest first: api_tokens.can_deactivate, then the webhooks' tables
    await db.migrate.down(MIGRATIONS);
    expect(await db.schema.hasColumn('api_tokens', 'can_deactivate')).toBe(false);
    expect(await db.schema.hasTable('webhooks')).toBe(true);
    await db.migrate.down(MIGRATIONS);
    for (const table of ['webhooks', 'webhook_deliveries', 'webhook_attempts', 'webhook_state']) expect(await db.schema.hasTable(table)).toBe(false);
    expect(await db.schema.hasColumn('audit_events', 'actor_token_id')).toBe(true);
    // SCIM's three: audit_events.actor_token_id, users.external_id (with its unique key) and deprovisioned_at, api_tokens
    await db.migrate.down(MIGRATIONS);
    expect(await db.schema.hasColumn('audit_events', 'actor_token_id')).toBe(false);
    await db.migrate.down(MIGRATIONS);
    expect(await db.schema.hasColumn('users', 'external_id')).toBe(false);
    expect(await db.schema.hasColumn('users', 'deprovisioned_at')).toBe(false);
    expect(await db('users').count({ n: '*' })).not.toEqual([{ n: 0 }]);
    await db.migrate.down(MIGRATIONS);
    expect(await db.schema.hasTable('api_tokens')).toBe(false);
    // the newest first (directory_state.changes_pruned_through, contact_changes), then
    // users.change_version, contact_search_backlog, read_versions, audit_events,
    // directory_state.search_version, role_permission_names
    await db.migrate.down(MIGRATIONS);
    expect(await db.schema.hasColumn('directory_state', 'changes_pruned_through')).toBe(false);
    expect(await db.schema.hasTable('contact_changes')).toBe(true);
    await db.migrate.down(MIGRATIONS);
    expect(await db.schema.hasTable('contact_changes')).toBe(false);
    expect(await db.schema.hasColumn('users', 'change_version')).toBe(true);
    await db.migrate.down(MIGRATIONS);
    expect(await db.schema.hasColumn('users', 'change_version')).toBe(false);
    expect(await db('users').count({ n: '*' })).not.toEqual([{ n: 0 }]);
    await db.migrate.down(MIGRATIONS);
    expect(await db.schema.hasTable('contact_search_backlog')).toBe(false);
    expect(await db.schema.hasTable('read_versions')).toBe(true);
    await db.migrate.down(MIGRATIONS);
    expect(await db.schema.hasTable('read_versions')).toBe(false);
    expect(await db.schema.hasTable('audit_events')).toBe(true);
    await db.migrate.down(MIGRATIONS);
    expect(await db.schema.hasTable('audit_events')).toBe(false);
    expect(await db.schema.hasTable('audit_event_targets')).toBe(false);
    await db.migrate.down(MIGRATIONS);
    expect(await db.schema.hasColumn('directory_state', 'search_version')).toBe(false);
    expect(await db('directory_state').where({ id: 1 }).first('version')).toBeDefined();
    await db.migrate.down(MIGRATIONS);
    expect(await db.schema.hasColumn('roles', 'permission_names')).toBe(false);
    expect(await db('role_permissions').orderBy(['role_id', 'permission_id']).select('role_id', 'permission_id')).toEqual(grants);

    await db.migrate.latest(MIGRATIONS);
    expect(await db('roles').orderBy('id').select('id', 'permission_names')).toEqual(names);
    expect(await db.schema.hasColumn('directory_state', 'search_version')).toBe(true);
    expect(await db.schema.hasTable('audit_events')).toBe(true);
    expect(await db('read_versions').orderBy('name').pluck('name')).toEqual(['account', 'locations', 'reference']);
    expect(await db.schema.hasTable('contact_search_backlog')).toBe(true);
    expect(await db.schema.hasColumn('users', 'change_version')).toBe(true);
    expect(await db.schema.hasTable('contact_changes')).toBe(true);
    expect(await db('directory_state').where({ id: 1 }).first('changes_pruned_through')).toEqual({ changes_pruned_through: 0 });
    // the fan-out starts after the directory's version when the migration ran
    const version = Number((await db('directory_state').where({ id: 1 }).first('version')).version);
    expect(await db('webhook_state').select('id', 'after_version', 'after_contact_id')).toEqual([{ id: 1, after_version: version, after_contact_id: 4_294_967_295 }]);
    expect(await db.schema.hasTable('api_tokens')).toBe(true);
    expect(await db.schema.hasColumn('api_tokens', 'can_deactivate')).toBe(true);
    expect(await db.schema.hasColumn('users', 'external_id')).toBe(true);
    expect(await db.schema.hasColumn('audit_events', 'actor_token_id')).toBe(true);
  } finally {
    await done();
  }
}, 120_000);

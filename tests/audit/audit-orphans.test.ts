import request from 'supertest';
import { contactsFixture } from '../contacts/contacts-support';
import { setupTestContext } from '../helpers/context';
import { bearer, createUser, type TestUser } from '../helpers/factory';
import { entriesFor, lastAuditId } from './audit-support';

/**
 * A deleted contact's children become roots: each one's history says so (docs/audit.md), in
 * one entry per delete and organization that names every child, its old parent, and why.
 */
const ctx = setupTestContext();
const f = contactsFixture(ctx, { unit: true, admin: 'Admin', references: true });
let superAdmin: TestUser;

beforeAll(async () => {
  superAdmin = await createUser(ctx, { role: 'Super_admin' });
});

const historyOf = (id: number, since: number) => entriesFor(ctx, superAdmin, { type: 'contact', id }, since);

test("deleting a contact puts a contact.bulk_move with cause parent_deleted in each child's history, with the old parent", async () => {
  const parent = await f.createOk(f.contactBody(f.unitId));
  const a = await f.createOk(f.contactBody(f.unitId, { parent_id: parent.id }));
  const b = await f.createOk(f.contactBody(f.unitId, { parent_id: parent.id }));
  const since = await lastAuditId(ctx);
  expect((await request(ctx.app).delete(`/api/contacts/${parent.id}`).set(bearer(superAdmin))).status).toBe(200);
  for (const child of [a, b]) {
    const entries = await historyOf(child.id, since);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ action: 'contact.bulk_move', target_id: null, actor_id: superAdmin.id });
    expect(entries[0].details).toEqual({ cause: 'parent_deleted', contact_ids: [a.id, b.id], previous_parent_ids: [parent.id, parent.id], parent_id: null });
  }
});

test('a bulk delete records the children it made roots, but not a child deleted in the same call', async () => {
  const parent = await f.createOk(f.contactBody(f.unitId));
  const kept = await f.createOk(f.contactBody(f.unitId, { parent_id: parent.id }));
  const gone = await f.createOk(f.contactBody(f.unitId, { parent_id: parent.id }));
  const since = await lastAuditId(ctx);
  expect((await request(ctx.app).post('/api/contacts/bulk-delete').set(bearer(superAdmin)).send({ contactIds: [parent.id, gone.id] })).status).toBe(200);
  const entries = await historyOf(kept.id, since);
  expect(entries.map((e) => e.action)).toEqual(['contact.bulk_move']);
  expect(entries[0].details).toEqual({ cause: 'parent_deleted', contact_ids: [kept.id], previous_parent_ids: [parent.id], parent_id: null });
  expect((await historyOf(gone.id, since)).map((e) => e.action)).toEqual(['contact.bulk_delete']);
});

test('deleting a contact without children records no move', async () => {
  const leaf = await f.createOk(f.contactBody(f.unitId));
  const since = await lastAuditId(ctx);
  expect((await request(ctx.app).delete(`/api/contacts/${leaf.id}`).set(bearer(superAdmin))).status).toBe(200);
  // only this file's actor: on MySQL the test files share one database, and another file's
  // deletes make moves of their own in the meantime
  const actions = (await ctx.db('audit_events').where('id', '>', since).where('actor_id', superAdmin.id).pluck('action')).map(String);
  expect(actions).toContain('contact.delete');
  expect(actions.filter((a) => a === 'contact.bulk_move')).toEqual([]);
});

import request from 'supertest';
import { contactsFixture } from '../contacts/contacts-support';
import { setupTestContext } from '../helpers/context';
import { bearer, createUser, unique, type TestUser } from '../helpers/factory';
import { csv, importCsv, personRow, tagOf, type TransferFixture } from '../transfer/transfer-support';
import { entriesFor, lastAuditId, rawEntriesSince, type AuditEvent } from './audit-support';

/**
 * Every change of a contact leaves one entry in the audit trail, in its own transaction: with
 * the actor, the request, and the fields that changed (docs/audit.md, What is recorded). A
 * refused change leaves none.
 */
const ctx = setupTestContext();
const f = contactsFixture(ctx, { unit: true, admin: 'Admin', references: true });
let reader: TestUser;

beforeAll(async () => {
  reader = await createUser(ctx, { role: 'Super_admin' });
});

const contactEntries = (id: number, since: number) => entriesFor(ctx, reader, { type: 'contact', id }, since);
const only = (entries: AuditEvent[]) => {
  expect(entries).toHaveLength(1);
  return entries[0];
};

describe('contact changes', () => {
  test('POST /api/contacts records contact.create with the actor, the request and the new values, never the password', async () => {
    const since = await lastAuditId(ctx);
    const body = f.contactBody(f.unitId, { password: 'Secr3tPass' });
    const res = await f.create(body).set('X-Request-Id', 'audit-create-1').set('User-Agent', 'audit-test/1.0');
    expect(res.status).toBe(201);
    const id = res.body.data.contact.id as number;
    const entry = only(await contactEntries(id, since));
    expect(entry).toMatchObject({
      action: 'contact.create',
      target_type: 'contact',
      target_id: id,
      actor_id: f.admin.id,
      actor_role: 'Admin',
      organization_id: 1,
      request_id: 'audit-create-1',
      user_agent: 'audit-test/1.0',
      details: null,
    });
    expect(entry.ip_address).toEqual(expect.any(String));
    expect(entry.changes).toMatchObject({ name: [null, body.name], service_no: [null, body.service_no], unit_id: [null, f.unitId], role_id: [null, 3] });
    expect(Object.keys(entry.changes).filter((k) => /password|token/.test(k))).toEqual([]);
    const raw = await rawEntriesSince(ctx, since);
    expect(raw).not.toContain('Secr3tPass');
    expect(raw).not.toMatch(/\$2[aby]\$/);
  });

  test('PUT /api/contacts/:id records only the fields that changed, before and after', async () => {
    const contact = await f.createOk(f.contactBody(f.unitId));
    const since = await lastAuditId(ctx);
    const res = await f.update(contact.id, { name: 'Renamed Person', phone: contact.phone, mobile: '01899999999' });
    expect(res.status).toBe(200);
    const entry = only(await contactEntries(contact.id, since));
    expect(entry.action).toBe('contact.update');
    expect(entry.changes).toEqual({ name: [contact.name, 'Renamed Person'], mobile: [null, '01899999999'] });
  });

  test('an update that changes nothing records nothing', async () => {
    const contact = await f.createOk(f.contactBody(f.unitId));
    const since = await lastAuditId(ctx);
    expect((await f.update(contact.id, { name: contact.name, phone: contact.phone })).status).toBe(200);
    expect(await contactEntries(contact.id, since)).toEqual([]);
  });

  test('a role change records role_id, and no token version', async () => {
    const contact = await f.createOk(f.contactBody(f.unitId));
    const since = await lastAuditId(ctx);
    expect((await f.update(contact.id, { role_id: 2 })).status).toBe(200);
    expect(only(await contactEntries(contact.id, since)).changes).toEqual({ role_id: [3, 2] });
  });

  test('DELETE records contact.delete as is_active true to false', async () => {
    const contact = await f.createOk(f.contactBody(f.unitId));
    const since = await lastAuditId(ctx);
    // delete and bulk changes are the Super_admin's (spec 2.4's table)
    expect((await f.remove(contact.id, reader)).status).toBe(200);
    expect(only(await contactEntries(contact.id, since))).toMatchObject({ action: 'contact.delete', changes: { is_active: [true, false] } });
  });

  test('PUT /:id/move records contact.move with the old and the new parent', async () => {
    const parent = await f.createOk(f.contactBody(f.unitId));
    const child = await f.createOk(f.contactBody(f.unitId));
    const since = await lastAuditId(ctx);
    expect((await f.move(child.id, parent.id)).status).toBe(200);
    expect(only(await contactEntries(child.id, since))).toMatchObject({ action: 'contact.move', changes: { parent_id: [null, parent.id] } });
  });

  test('a refused move (under its own child) leaves no entry: the entry rolls back with the change', async () => {
    const parent = await f.createOk(f.contactBody(f.unitId));
    const child = await f.createOk(f.contactBody(f.unitId, { parent_id: parent.id }));
    const since = await lastAuditId(ctx);
    expect((await f.move(parent.id, child.id)).status).toBe(400);
    expect(await contactEntries(parent.id, since)).toEqual([]);
  });

  test('a refused create (a taken e-mail) leaves no entry', async () => {
    const taken = await f.createOk(f.contactBody(f.unitId));
    const since = await lastAuditId(ctx);
    const body = f.contactBody(f.unitId, { email: taken.email });
    expect((await f.create(body)).status).toBe(400);
    const rows = await ctx.db('audit_events').where('id', '>', since).where('action', 'contact.create').where('changes', 'like', `%${body.service_no}%`);
    expect(rows).toEqual([]);
  });

  test('PUT /:id/password records contact.password_reset with no password or hash anywhere in it', async () => {
    const contact = await f.createOk(f.contactBody(f.unitId, { password: 'Start3rPass' }));
    const since = await lastAuditId(ctx);
    const res = await request(ctx.app).put(`/api/contacts/${contact.id}/password`).set(bearer(f.admin)).send({ newPassword: 'N3wSecretPass' });
    expect(res.status).toBe(200);
    expect(only(await contactEntries(contact.id, since))).toMatchObject({ action: 'contact.password_reset', changes: {} });
    const { password_hash: hash } = await ctx.db('users').where({ id: contact.id }).first('password_hash');
    const raw = await rawEntriesSince(ctx, since);
    expect(raw).not.toContain(hash);
    expect(raw).not.toContain('N3wSecretPass');
  });
});

describe('changes of many', () => {
  test('bulk delete is one entry with every id, found in each contact history', async () => {
    const a = await f.createOk(f.contactBody(f.unitId));
    const b = await f.createOk(f.contactBody(f.unitId));
    const since = await lastAuditId(ctx);
    expect((await f.bulkDelete([a.id, b.id], reader)).status).toBe(200);
    const entry = only(await contactEntries(a.id, since));
    expect(entry).toMatchObject({ action: 'contact.bulk_delete', target_id: null, changes: { is_active: [true, false] } });
    expect((entry.details!.contact_ids as number[]).sort((x, y) => x - y)).toEqual([a.id, b.id].sort((x, y) => x - y));
    expect(only(await contactEntries(b.id, since)).id).toBe(entry.id);
  });

  test('bulk move is one entry with the ids, their old parents and the new one; a refused one leaves none', async () => {
    const parent = await f.createOk(f.contactBody(f.unitId));
    const a = await f.createOk(f.contactBody(f.unitId));
    const since = await lastAuditId(ctx);
    expect((await f.bulkMove([a.id, 999_999_999], parent.id, reader)).status).toBe(400);
    expect(await contactEntries(a.id, since)).toEqual([]);
    expect((await f.bulkMove([a.id], parent.id, reader)).status).toBe(200);
    const entry = only(await contactEntries(a.id, since));
    expect(entry).toMatchObject({ action: 'contact.bulk_move', target_id: null, changes: {} });
    expect(entry.details).toEqual({ contact_ids: [a.id], previous_parent_ids: [null], parent_id: parent.id });
  });
});

describe('accounts', () => {
  test('POST /api/auth/register records user.register in the new user organization, without the password', async () => {
    const since = await lastAuditId(ctx);
    const email = `${unique('reg')}@example.test`.toLowerCase();
    const res = await request(ctx.app).post('/api/auth/register').set(bearer(reader)).send({
      name: 'Registered Person', email, password: 'Reg1sterPass', service_no: unique('RG').slice(0, 40), unit: 'Headquarters', designation: 'Director',
    });
    expect(res.status).toBe(201);
    const entry = only(await contactEntries(res.body.data.user.id, since));
    expect(entry).toMatchObject({ action: 'user.register', actor_id: reader.id, actor_role: 'Super_admin', organization_id: 1 });
    expect(entry.changes.email).toEqual([null, email]);
    expect(await rawEntriesSince(ctx, since)).not.toContain('Reg1sterPass');
  });

  test('PUT /api/auth/profile records profile.update with the caller as actor and target', async () => {
    const user = await createUser(ctx);
    const since = await lastAuditId(ctx);
    const res = await request(ctx.app).put('/api/auth/profile').set(bearer(user)).send({ mobile: '01612345678' });
    expect(res.status).toBe(200);
    expect(only(await contactEntries(user.id, since))).toMatchObject({
      action: 'profile.update', actor_id: user.id, actor_role: 'User', target_id: user.id, changes: { mobile: [null, '01612345678'] },
    });
  });
});

describe('import', () => {
  const transfer = (): TransferFixture => ({ admin: f.admin, superAdmin: reader, user: reader, unit: { id: f.unitId, name: '', code: '' }, designation: f.designation.name });
  const unitCode = async () => String((await ctx.db('units').where({ id: f.unitId }).first('code')).code);
  const rowFor = async (tag: string) => {
    const row = personRow(transfer(), tag);
    row[4] = await unitCode();
    return row;
  };
  const header = ['name', 'service_no', 'email', 'phone', 'unit', 'designation', 'parent_service_no'];

  test('an import is one entry with its counts, in the history of every contact it wrote', async () => {
    const [a, b] = [tagOf('AU'), tagOf('AU')];
    const since = await lastAuditId(ctx);
    const res = await importCsv(ctx, f.admin, csv([header, await rowFor(a), await rowFor(b)]));
    expect(res.status).toBe(200);
    const ids = (await ctx.db('users').whereIn('service_no', [a, b]).pluck('id')).map(Number);
    const entry = only(await contactEntries(ids[0], since));
    expect(entry).toMatchObject({ action: 'contact.import', target_id: null, actor_id: f.admin.id });
    expect(entry.details).toEqual({ mode: 'create', rows: 2, created: 2, updated: 0, unchanged: 0 });
    expect(only(await contactEntries(ids[1], since)).id).toBe(entry.id);
  });

  test('a dry run and a refused import leave no entry', async () => {
    const tag = tagOf('AU');
    const since = await lastAuditId(ctx);
    expect((await importCsv(ctx, f.admin, csv([header, await rowFor(tag)]), '?dry_run=true')).status).toBe(200);
    const bad = await rowFor(tagOf('AU'));
    bad[5] = 'No Such Designation';
    expect((await importCsv(ctx, f.admin, csv([header, await rowFor(tag), bad]))).status).toBe(422);
    const rows = await ctx.db('audit_events').where('id', '>', since).where({ action: 'contact.import', actor_id: f.admin.id });
    expect(rows).toEqual([]);
  });
});

import type request from 'supertest';
import { setupTestContext } from '../helpers/context';
import { bearer, createDepartment, createUnit, createUser } from '../helpers/factory';
import { treeProblems } from '../helpers/tree';
import { contactsFixture, expectRefusal, nameTree } from './contacts-support';

/** PUT /api/contacts/:id/move and the parent and unit rules of PUT /api/contacts/:id (spec 4.2 #11; DECISIONS 5). */

const ctx = setupTestContext({ RATE_LIMIT_MAX: '1000000' });
const fx = contactsFixture(ctx, { admin: 'Admin' });
const { api, move, update, row, parentOf } = fx;

/** A unit with  A -> (B -> D), C  (A and C roots). */
async function unitTree() {
  const unit = await createUnit(ctx);
  const a = await createUser(ctx, { unit_id: unit.id, name: 'Alpha' });
  const c = await createUser(ctx, { unit_id: unit.id, name: 'Charlie' });
  const b = await createUser(ctx, { unit_id: unit.id, name: 'Bravo', parent_id: a.id });
  const d = await createUser(ctx, { unit_id: unit.id, name: 'Delta', parent_id: b.id });
  return { unit, a, b, c, d };
}

const refusal = (res: request.Response, message: string) => expectRefusal(res, 'parent_id', message);

describe('PUT /api/contacts/:id/move', () => {
  test('answers 200 `Contact moved successfully` with the contact and its branch: its ancestors, it and its subtree', async () => {
    const t = await unitTree();
    const res = await move(t.b.id, t.c.id);
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('success');
    expect(res.body.message).toBe('Contact moved successfully');
    expect(res.body.data.contact).toMatchObject({ id: t.b.id, parent_id: t.c.id, parent_name: 'Charlie', unit_id: t.unit.id, is_active: true });
    // not Alpha, the old parent, nor anything else of the unit
    expect(nameTree(res.body.data.tree)).toEqual([['Charlie', [['Bravo', [['Delta', []]]]]]]);
    expect(res.body.data.tree[0]).toMatchObject({ id: t.c.id, parent_id: null, children: [{ id: t.b.id, parent_id: t.c.id }] });
    expect(await parentOf(t.b.id)).toBe(t.c.id);
    expect(await parentOf(t.d.id)).toBe(t.b.id);
    expect(await treeProblems(ctx.db)).toEqual([]);
  });

  test('tree_scope=unit answers with the unit\'s whole tree of active contacts instead', async () => {
    const t = await unitTree();
    const res = await api().put(`/api/contacts/${t.b.id}/move?tree_scope=unit`).set(bearer(fx.admin)).send({ parent_id: t.c.id });
    expect(res.status).toBe(200);
    expect(nameTree(res.body.data.tree)).toEqual([
      ['Alpha', []],
      ['Charlie', [['Bravo', [['Delta', []]]]]],
    ]);
    const contact = await api().put(`/api/contacts/${t.d.id}/move?tree_scope=contact`).set(bearer(fx.admin)).send({ parent_id: t.a.id });
    expect(nameTree(contact.body.data.tree)).toEqual([['Alpha', [['Delta', []]]]]);
  });

  test('a tree_scope other than contact or unit is 400, and nothing moves', async () => {
    const t = await unitTree();
    const res = await api().put(`/api/contacts/${t.b.id}/move?tree_scope=all`).set(bearer(fx.admin)).send({ parent_id: t.c.id });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ field: 'tree_scope', message: 'tree_scope must be one of: contact, unit' }]);
    expect(await parentOf(t.b.id)).toBe(t.a.id);
  });

  test('the branch leaves out deleted descendants, and holds a deep subtree whole', async () => {
    const t = await unitTree();
    const e = await createUser(ctx, { unit_id: t.unit.id, name: 'Echo', parent_id: t.d.id });
    await createUser(ctx, { unit_id: t.unit.id, name: 'Foxtrot', parent_id: e.id });
    await createUser(ctx, { unit_id: t.unit.id, name: 'Golf', parent_id: t.b.id });
    const deleted = await createUser(ctx, { unit_id: t.unit.id, name: 'Hotel', parent_id: t.b.id });
    // as a delete leaves a leaf (a deleted contact's children become roots)
    await ctx.db('users').where({ id: deleted.id }).update({ is_active: false });
    const res = await move(t.b.id, t.c.id);
    expect(res.status).toBe(200);
    expect(nameTree(res.body.data.tree)).toEqual([['Charlie', [['Bravo', [['Delta', [['Echo', [['Foxtrot', []]]]]], ['Golf', []]]]]]]);
  });

  test('the branch of a subtree larger than one read of a small one (40 children) holds every descendant, in order', async () => {
    const t = await unitTree();
    const names = Array.from({ length: 40 }, (_, i) => `Kilo ${String(i).padStart(2, '0')}`);
    for (const name of names) await createUser(ctx, { unit_id: t.unit.id, name, parent_id: t.b.id });
    const res = await move(t.b.id, t.c.id);
    expect(res.status).toBe(200);
    expect(nameTree(res.body.data.tree)).toEqual([['Charlie', [['Bravo', [['Delta', []], ...names.map((n) => [n, []])]]]]]);
  });

  test('parent_id null makes the contact a root', async () => {
    const t = await unitTree();
    const res = await move(t.d.id, null);
    expect(res.status).toBe(200);
    expect(res.body.data.contact).toMatchObject({ id: t.d.id, parent_id: null, parent_name: null });
    expect(nameTree(res.body.data.tree)).toEqual([['Delta', []]]);
    expect(await parentOf(t.d.id)).toBeNull();
    expect(await treeProblems(ctx.db)).toEqual([]);
  });

  test('a parent_id given as a string of digits is accepted', async () => {
    const t = await unitTree();
    const res = await move(t.c.id, String(t.a.id));
    expect(res.status).toBe(200);
    expect(await parentOf(t.c.id)).toBe(t.a.id);
  });

  test('moving under the current parent changes nothing and succeeds', async () => {
    const t = await unitTree();
    const res = await move(t.d.id, t.b.id);
    expect(res.status).toBe(200);
    expect(await parentOf(t.d.id)).toBe(t.b.id);
  });

  test('refuses a parent in another unit: 400 `Parent must belong to the same unit`', async () => {
    const t = await unitTree();
    const stranger = await createUser(ctx, { unit_id: (await createUnit(ctx)).id });
    refusal(await move(t.b.id, stranger.id), 'Parent must belong to the same unit');
    expect(await parentOf(t.b.id)).toBe(t.a.id);
  });

  test('refuses an unknown parent: 400 `Parent contact not found`', async () => {
    const t = await unitTree();
    refusal(await move(t.b.id, 2_000_000_000), 'Parent contact not found');
    expect(await parentOf(t.b.id)).toBe(t.a.id);
  });

  test('refuses an inactive parent: 400 `Parent contact not found`', async () => {
    const t = await unitTree();
    const gone = await createUser(ctx, { unit_id: t.unit.id, is_active: false });
    refusal(await move(t.b.id, gone.id), 'Parent contact not found');
    expect(await parentOf(t.b.id)).toBe(t.a.id);
  });

  test('refuses the contact itself as parent', async () => {
    const t = await unitTree();
    refusal(await move(t.b.id, t.b.id), 'Cannot move a contact under itself or one of its descendants');
    expect(await parentOf(t.b.id)).toBe(t.a.id);
  });

  test.each([
    ['a child', 'b'],
    ['a grandchild', 'd'],
  ] as const)('refuses %s of the contact as parent', async (_what, key) => {
    const t = await unitTree();
    refusal(await move(t.a.id, t[key].id), 'Cannot move a contact under itself or one of its descendants');
    expect(await parentOf(t.a.id)).toBeNull();
    expect(await treeProblems(ctx.db)).toEqual([]);
  });

  test('answers 404 `Contact not found` for an unknown contact', async () => {
    const res = await move(2_000_000_000, null);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ status: 'error', message: 'Contact not found' });
  });

  test('answers 404 `Contact not found` for an inactive contact, and leaves it where it is', async () => {
    const t = await unitTree();
    const gone = await createUser(ctx, { unit_id: t.unit.id, is_active: false });
    const res = await move(gone.id, t.a.id);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ status: 'error', message: 'Contact not found' });
    expect(await parentOf(gone.id)).toBeNull();
  });

  test('a moved contact shows under its new parent in the children endpoint', async () => {
    const t = await unitTree();
    expect((await move(t.d.id, t.c.id)).status).toBe(200);
    const kids = async (id: number) =>
      (await api().get(`/api/contacts/${id}/children`).set(bearer(fx.admin))).body.data.children.map((c: { id: number }) => c.id);
    expect(await kids(t.c.id)).toEqual([t.d.id]);
    expect(await kids(t.b.id)).toEqual([]);
  });
});

describe('parent changes through PUT /api/contacts/:id', () => {
  test('follow the same rules as a move', async () => {
    const t = await unitTree();
    const stranger = await createUser(ctx, { unit_id: (await createUnit(ctx)).id });
    refusal(await update(t.a.id, { parent_id: t.d.id }), 'Cannot move a contact under itself or one of its descendants');
    refusal(await update(t.a.id, { parent_id: t.a.id }), 'Cannot move a contact under itself or one of its descendants');
    refusal(await update(t.a.id, { parent_id: stranger.id }), 'Parent must belong to the same unit');
    refusal(await update(t.a.id, { parent_id: 2_000_000_000 }), 'Parent contact not found');
    expect(await parentOf(t.a.id)).toBeNull();
    const ok = await update(t.d.id, { parent_id: t.c.id });
    expect(ok.status).toBe(200);
    expect(ok.body.data.contact).toMatchObject({ parent_id: t.c.id, parent_name: 'Charlie' });
    expect(await treeProblems(ctx.db)).toEqual([]);
  });
});

describe('unit change through PUT /api/contacts/:id', () => {
  test('is refused while the contact has active children, and nothing changes', async () => {
    const t = await unitTree();
    const other = await createUnit(ctx);
    const before = await row(t.b.id);
    const res = await update(t.b.id, { unit_id: other.id, parent_id: null, name: 'Renamed' });
    expect(res.status).toBe(400);
    expect(res.body.status).toBe('error');
    expect(res.body.message).toMatch(/children/i);
    expect(await row(t.b.id)).toEqual(before);
    expect(await parentOf(t.d.id)).toBe(t.b.id);
  });

  test('is refused while the contact stays under a parent in the old unit, and nothing changes', async () => {
    const t = await unitTree();
    const other = await createUnit(ctx);
    const before = await row(t.d.id);
    const res = await update(t.d.id, { unit_id: other.id });
    expect(res.status).toBe(400);
    expect(res.body.status).toBe('error');
    expect(res.body.message).toMatch(/parent/i);
    expect(await row(t.d.id)).toEqual(before);
  });

  test('naming the old parent again with the new unit is refused as a parent in another unit', async () => {
    const t = await unitTree();
    const other = await createUnit(ctx);
    const before = await row(t.d.id);
    refusal(await update(t.d.id, { unit_id: other.id, parent_id: t.b.id }), 'Parent must belong to the same unit');
    expect(await row(t.d.id)).toEqual(before);
  });

  test('is accepted with a parent_id in the new unit', async () => {
    const t = await unitTree();
    const other = await createUnit(ctx);
    const host = await createUser(ctx, { unit_id: other.id, name: 'Host' });
    const res = await update(t.d.id, { unit_id: other.id, parent_id: host.id });
    expect(res.status).toBe(200);
    expect(res.body.data.contact).toMatchObject({ unit_id: other.id, unit_name: other.name, parent_id: host.id, parent_name: 'Host' });
    const r = await row(t.d.id);
    expect(Number(r.unit_id)).toBe(other.id);
    expect(Number(r.parent_id)).toBe(host.id);
    const kids = await api().get(`/api/contacts/${t.b.id}/children`).set(bearer(fx.admin));
    expect(kids.body.data.total).toBe(0);
    expect(await treeProblems(ctx.db)).toEqual([]);
  });

  test('is accepted with parent_id null', async () => {
    const t = await unitTree();
    const other = await createUnit(ctx);
    const res = await update(t.d.id, { unit_id: other.id, parent_id: null });
    expect(res.status).toBe(200);
    expect(res.body.data.contact).toMatchObject({ unit_id: other.id, parent_id: null });
    const list = await api().get('/api/contacts').query({ unit_id: other.id, format: 'flat' }).set(bearer(fx.admin));
    expect(list.body.data.contacts.map((c: { id: number }) => c.id)).toEqual([t.d.id]);
    expect(await treeProblems(ctx.db)).toEqual([]);
  });

  test('is accepted when the only children are deleted ones; they stay in the old unit as roots', async () => {
    const t = await unitTree();
    const other = await createUnit(ctx);
    expect((await api().delete(`/api/contacts/${t.d.id}`).set(bearer(await createUser(ctx, { role: 'Super_admin' })))).status).toBe(200);
    // the deleted Delta is still Bravo's (inactive) child
    expect(await parentOf(t.d.id)).toBe(t.b.id);
    const res = await update(t.b.id, { unit_id: other.id, parent_id: null });
    expect(res.status).toBe(200);
    expect(res.body.data.contact).toMatchObject({ unit_id: other.id, parent_id: null });
    const d = await row(t.d.id);
    expect(Number(d.unit_id)).toBe(t.unit.id);
    expect(d.parent_id).toBeNull();
    expect(await treeProblems(ctx.db)).toEqual([]);
  });

  test('of a root without children needs nothing else', async () => {
    const t = await unitTree();
    const other = await createUnit(ctx);
    const res = await update(t.c.id, { unit_id: other.id });
    expect(res.status).toBe(200);
    expect(res.body.data.contact).toMatchObject({ unit_id: other.id, parent_id: null });
  });

  test('keeping a department of the old unit is refused with `Department does not belong to the unit`', async () => {
    const unit = await createUnit(ctx);
    const department = await createDepartment(ctx, unit.id);
    const target = await createUser(ctx, { unit_id: unit.id, department_id: department.id });
    const other = await createUnit(ctx);
    const before = await row(target.id);
    const res = await update(target.id, { unit_id: other.id });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('Department does not belong to the unit');
    expect(await row(target.id)).toEqual(before);
    const fixed = await update(target.id, { unit_id: other.id, department_id: (await createDepartment(ctx, other.id)).id });
    expect(fixed.status).toBe(200);
  });
});

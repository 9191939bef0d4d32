import { setupTestContext } from '../helpers/context';
import { bearer, createUnit, createUser } from '../helpers/factory';
import { treeProblems } from '../helpers/tree';
import { contactsFixture, expectRefusal } from './contacts-support';

/** POST /api/contacts/bulk-delete and /bulk-move (spec 4.2 #12-13; DECISIONS 1, 5). */

const ctx = setupTestContext({ RATE_LIMIT_MAX: '1000000' });
const fx = contactsFixture(ctx, { admin: 'Super_admin' });
const { api, bulkDelete, bulkMove, row, parentOf } = fx;
const isActive = async (id: number) => Boolean(Number((await row(id)).is_active));
const parentsOf = async (ids: number[]) => Promise.all(ids.map(parentOf));

/** A unit with  A -> (B -> (C, D)), E -> F  (A and E roots). */
async function unitTree() {
  const unit = await createUnit(ctx);
  const a = await createUser(ctx, { unit_id: unit.id, name: 'Alpha' });
  const e = await createUser(ctx, { unit_id: unit.id, name: 'Echo' });
  const b = await createUser(ctx, { unit_id: unit.id, name: 'Bravo', parent_id: a.id });
  const c = await createUser(ctx, { unit_id: unit.id, name: 'Charlie', parent_id: b.id });
  const d = await createUser(ctx, { unit_id: unit.id, name: 'Delta', parent_id: b.id });
  const f = await createUser(ctx, { unit_id: unit.id, name: 'Foxtrot', parent_id: e.id });
  return { unit, a, b, c, d, e, f, all: [a, b, c, d, e, f].map((x) => x.id) };
}

describe('POST /api/contacts/bulk-delete', () => {
  test('answers `<n> contacts deleted successfully` with deletedCount and contactIds', async () => {
    const t = await unitTree();
    const res = await bulkDelete([t.c.id, t.f.id]);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      status: 'success',
      message: '2 contacts deleted successfully',
      data: { deletedCount: 2, contactIds: [t.c.id, t.f.id], deleted_count: 2, contact_ids: [t.c.id, t.f.id] },
    });
    expect(await isActive(t.c.id)).toBe(false);
    expect(await isActive(t.f.id)).toBe(false);
    expect(await isActive(t.d.id)).toBe(true);
    expect(await treeProblems(ctx.db)).toEqual([]);
  });

  test('skips unknown and already inactive ids and counts only what changed', async () => {
    const t = await unitTree();
    const inactive = await createUser(ctx, { unit_id: t.unit.id, is_active: false });
    const inactiveBefore = await row(inactive.id);
    const res = await bulkDelete([2_000_000_000, t.d.id, inactive.id]);
    expect(res.status).toBe(200);
    expect(res.body.message).toBe('1 contacts deleted successfully');
    expect(res.body.data).toEqual({ deletedCount: 1, contactIds: [t.d.id], deleted_count: 1, contact_ids: [t.d.id] });
    expect(await isActive(t.d.id)).toBe(false);
    expect(await row(inactive.id)).toEqual(inactiveBefore);
  });

  test('a call that changes nothing answers 0 contacts', async () => {
    const res = await bulkDelete([2_000_000_000, 2_000_000_001]);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ message: '0 contacts deleted successfully', data: { deletedCount: 0, contactIds: [] } });
  });

  test('the same call twice deletes once', async () => {
    const t = await unitTree();
    expect((await bulkDelete([t.c.id, t.d.id])).body.data.deletedCount).toBe(2);
    const again = await bulkDelete([t.c.id, t.d.id]);
    expect(again.body.data).toEqual({ deletedCount: 0, contactIds: [], deleted_count: 0, contact_ids: [] });
  });

  test('children of removed contacts become roots unless removed in the same call', async () => {
    const t = await unitTree();
    // A and B go: B keeps A as parent (both removed), C and D (children of B) and nothing else of A's become roots
    const res = await bulkDelete([t.a.id, t.b.id, t.e.id]);
    expect(res.status).toBe(200);
    expect(res.body.data.deletedCount).toBe(3);
    expect(await parentsOf([t.c.id, t.d.id, t.f.id])).toEqual([null, null, null]);
    expect(await parentOf(t.b.id)).toBe(t.a.id);
    for (const id of [t.c.id, t.d.id, t.f.id]) expect(await isActive(id)).toBe(true);
    const list = await api().get('/api/contacts').query({ unit_id: t.unit.id, format: 'flat' }).set(bearer(fx.admin));
    expect(list.body.data.contacts.map((c: { name: string; level: number }) => [c.name, c.level])).toEqual([
      ['Charlie', 0],
      ['Delta', 0],
      ['Foxtrot', 0],
    ]);
    expect(await treeProblems(ctx.db)).toEqual([]);
  });

  test('the removed contacts\' tokens stop working', async () => {
    const t = await unitTree();
    expect((await api().get(`/api/contacts/${t.c.id}`).set(bearer(t.c))).status).toBe(200);
    expect((await bulkDelete([t.c.id])).status).toBe(200);
    expect((await api().get(`/api/contacts/${t.c.id}`).set(bearer(t.c))).status).toBe(401);
  });
});

describe('POST /api/contacts/bulk-move', () => {
  test('answers `<n> contacts moved successfully` with movedCount, contactIds and new_parent_id', async () => {
    const t = await unitTree();
    const res = await bulkMove([t.c.id, t.f.id], t.a.id);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      status: 'success',
      message: '2 contacts moved successfully',
      data: { movedCount: 2, contactIds: [t.c.id, t.f.id], moved_count: 2, contact_ids: [t.c.id, t.f.id], new_parent_id: t.a.id },
    });
    expect(await parentsOf([t.c.id, t.f.id])).toEqual([t.a.id, t.a.id]);
    expect(await treeProblems(ctx.db)).toEqual([]);
  });

  test('parent_id null makes every contact a root', async () => {
    const t = await unitTree();
    const res = await bulkMove([t.b.id, t.f.id], null);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ movedCount: 2, contactIds: [t.b.id, t.f.id], moved_count: 2, contact_ids: [t.b.id, t.f.id], new_parent_id: null });
    expect(await parentsOf([t.b.id, t.f.id, t.c.id])).toEqual([null, null, t.b.id]);
    expect(await treeProblems(ctx.db)).toEqual([]);
  });

  test('contacts of several units may all become roots', async () => {
    const t = await unitTree();
    const u = await unitTree();
    const res = await bulkMove([t.c.id, u.c.id], null);
    expect(res.status).toBe(200);
    expect(await parentsOf([t.c.id, u.c.id])).toEqual([null, null]);
  });

  test('one unknown id fails the whole call with 400 naming it, and nothing moves', async () => {
    const t = await unitTree();
    const before = await parentsOf(t.all);
    const res = await bulkMove([t.c.id, 2_000_000_000, t.f.id], t.e.id);
    expect(res.status).toBe(400);
    expect(res.body.status).toBe('error');
    expect(res.body.message).toContain('2000000000');
    expect(res.body.errors).toEqual([{ field: 'contactIds', message: expect.stringContaining('2000000000') }]);
    expect(await parentsOf(t.all)).toEqual(before);
  });

  test('one inactive id fails the whole call with 400 naming it, and nothing moves', async () => {
    const t = await unitTree();
    const gone = await createUser(ctx, { unit_id: t.unit.id, is_active: false });
    const before = await parentsOf(t.all);
    const res = await bulkMove([t.c.id, gone.id], t.e.id);
    expect(res.status).toBe(400);
    expect(res.body.message).toContain(String(gone.id));
    expect(res.body.message).not.toContain(String(t.c.id));
    expect(await parentsOf(t.all)).toEqual(before);
    expect(await parentOf(gone.id)).toBeNull();
  });

  test('a parent in another unit is refused and nothing moves', async () => {
    const t = await unitTree();
    const stranger = await createUser(ctx, { unit_id: (await createUnit(ctx)).id });
    const before = await parentsOf(t.all);
    expectRefusal(await bulkMove([t.c.id, t.f.id], stranger.id), 'parent_id', 'Parent must belong to the same unit');
    expect(await parentsOf(t.all)).toEqual(before);
  });

  test('a parent that suits only some of the contacts is refused and nothing moves', async () => {
    const t = await unitTree();
    const u = await unitTree();
    const before = [...(await parentsOf(t.all)), ...(await parentsOf(u.all))];
    const res = await bulkMove([t.c.id, u.c.id], t.e.id);
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('Parent must belong to the same unit');
    expect([...(await parentsOf(t.all)), ...(await parentsOf(u.all))]).toEqual(before);
  });

  test('an unknown or inactive parent is refused with `Parent contact not found`', async () => {
    const t = await unitTree();
    const gone = await createUser(ctx, { unit_id: t.unit.id, is_active: false });
    const before = await parentsOf(t.all);
    for (const parent of [2_000_000_000, gone.id]) {
      const res = await bulkMove([t.c.id], parent);
      expect(res.status).toBe(400);
      expect(res.body.errors).toEqual([{ field: 'parent_id', message: 'Parent contact not found' }]);
    }
    expect(await parentsOf(t.all)).toEqual(before);
  });

  test.each([
    ['one of the moved contacts', 'b'],
    ['a descendant of a moved contact', 'c'],
    ['a grandchild of a moved contact', 'd'],
  ] as const)('a parent that is %s is refused and nothing moves', async (_what, key) => {
    const t = await unitTree();
    const before = await parentsOf(t.all);
    const res = await bulkMove(key === 'b' ? [t.b.id, t.f.id] : [t.f.id, t.a.id], t[key].id);
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('Cannot move a contact under itself or one of its descendants');
    expect(res.body.errors).toEqual([{ field: 'parent_id', message: 'Cannot move a contact under itself or one of its descendants' }]);
    expect(await parentsOf(t.all)).toEqual(before);
  });

  test('moving a contact together with its own descendant puts both under the new parent', async () => {
    const t = await unitTree();
    const res = await bulkMove([t.a.id, t.c.id], t.e.id);
    expect(res.status).toBe(200);
    expect(res.body.data.movedCount).toBe(2);
    expect(await parentsOf([t.a.id, t.c.id, t.b.id, t.d.id])).toEqual([t.e.id, t.e.id, t.a.id, t.b.id]);
    const tree = await api().get(`/api/contacts/unit/${t.unit.id}`).query({ format: 'hierarchical' }).set(bearer(fx.admin));
    expect(tree.body.data.contacts.map((c: { path: string }) => c.path)).toEqual([
      'Echo',
      'Echo > Alpha',
      'Echo > Alpha > Bravo',
      'Echo > Alpha > Bravo > Delta',
      'Echo > Charlie',
      'Echo > Foxtrot',
    ]);
    expect(await treeProblems(ctx.db)).toEqual([]);
  });

  test('moving a descendant listed before its ancestor works the same', async () => {
    const t = await unitTree();
    const res = await bulkMove([t.d.id, t.b.id], null);
    expect(res.status).toBe(200);
    expect(await parentsOf([t.b.id, t.d.id, t.c.id])).toEqual([null, null, t.b.id]);
    expect(await treeProblems(ctx.db)).toEqual([]);
  });
});

import request from 'supertest';
import { setupTestContext } from '../helpers/context';
import { anyDesignationId, bearer, createUnit, createUser, type TestUser } from '../helpers/factory';
import { treeProblems } from '../helpers/tree';

const ctx = setupTestContext();

interface Node {
  id: number;
  name: string;
  parent_id: number | null;
  level?: number;
  path?: string;
  ancestors?: number[];
  children?: Node[];
}

/** The tree shape of a `tree` response: id, name and children, all the way down. */
function shapeOf(nodes: Node[]): unknown[] {
  return nodes.map((n) => ({ id: n.id, name: n.name, parent_id: n.parent_id, children: shapeOf(n.children ?? []) }));
}

describe('the three formats on a hand-built tree', () => {
  let admin: TestUser;
  let unitId: number;
  const ids: Record<string, number> = {};

  /*
   * Alice            (root; siblings sort by lower-cased name, then id)
   * ├── bob
   * │   └── Dave
   * └── Carol
   * Eve              (root)
   * └── frank
   */
  beforeAll(async () => {
    admin = await createUser(ctx, { role: 'Super_admin' });
    unitId = (await createUnit(ctx)).id;
    const designationId = await anyDesignationId(ctx);
    // Alice, Dave, Carol and frank share a phone fragment that the filter test searches for
    const marked = new Set(['Alice', 'Dave', 'Carol', 'frank']);
    const add = async (name: string, parent?: string) => {
      const res = await request(ctx.app)
        .post('/api/contacts')
        .set(bearer(admin))
        .send({
          name,
          service_no: `F-${name}-${unitId}`,
          email: `${name.toLowerCase()}.${unitId}@formats.test`,
          phone: marked.has(name) ? '01799955501' : '01800000000',
          unit_id: unitId,
          designation_id: designationId,
          parent_id: parent ? ids[parent] : null,
        });
      expect(res.status).toBe(201);
      ids[name] = res.body.data.contact.id;
    };
    // made out of order, so that the order below comes from the tree, not from ids
    await add('Eve');
    await add('frank', 'Eve');
    await add('Carol');
    await add('Alice');
    await add('bob', 'Alice');
    await add('Dave', 'bob');
    const moved = await request(ctx.app).put(`/api/contacts/${ids.Carol}/move`).set(bearer(admin)).send({ parent_id: ids.Alice });
    expect(moved.status).toBe(200);
  });

  const list = (query: string) => request(ctx.app).get(`/api/contacts?unit_id=${unitId}&${query}`).set(bearer(admin));

  test('tree: contacts nested under their parents, siblings by name case-insensitively', async () => {
    const res = await list('format=tree');
    expect(res.status).toBe(200);
    expect(shapeOf(res.body.data.contacts)).toEqual([
      {
        id: ids.Alice,
        name: 'Alice',
        parent_id: null,
        children: [
          { id: ids.bob, name: 'bob', parent_id: ids.Alice, children: [{ id: ids.Dave, name: 'Dave', parent_id: ids.bob, children: [] }] },
          { id: ids.Carol, name: 'Carol', parent_id: ids.Alice, children: [] },
        ],
      },
      { id: ids.Eve, name: 'Eve', parent_id: null, children: [{ id: ids.frank, name: 'frank', parent_id: ids.Eve, children: [] }] },
    ]);
    expect(res.body.data.pagination).toEqual({ page: 1, limit: 100, total: 6, total_pages: 1, has_more: false, format: 'tree' });
    // tree nodes are full contacts
    expect(res.body.data.contacts[0]).toMatchObject({ unit_id: unitId, is_active: true, email: `alice.${unitId}@formats.test` });
  });

  test('flat: depth-first order with level and parent_id', async () => {
    const res = await list('format=flat');
    expect(res.body.data.contacts.map((c: Node) => [c.name, c.level, c.parent_id])).toEqual([
      ['Alice', 0, null],
      ['bob', 1, ids.Alice],
      ['Dave', 2, ids.bob],
      ['Carol', 1, ids.Alice],
      ['Eve', 0, null],
      ['frank', 1, ids.Eve],
    ]);
    expect(res.body.data.contacts[0]).not.toHaveProperty('children');
  });

  test('tree=false means flat', async () => {
    const res = await list('tree=false');
    expect(res.body.data.pagination.format).toBe('flat');
    expect(res.body.data.contacts.map((c: Node) => c.name)).toEqual(['Alice', 'bob', 'Dave', 'Carol', 'Eve', 'frank']);
    expect(res.body.data.filters.tree).toBe(false);
  });

  test('hierarchical: path joined by " > ", level, ancestors from the root down', async () => {
    const res = await list('format=hierarchical');
    expect(res.body.data.contacts.map((c: Node) => [c.name, c.path, c.level, c.ancestors])).toEqual([
      ['Alice', 'Alice', 0, []],
      ['bob', 'Alice > bob', 1, [ids.Alice]],
      ['Dave', 'Alice > bob > Dave', 2, [ids.Alice, ids.bob]],
      ['Carol', 'Alice > Carol', 1, [ids.Alice]],
      ['Eve', 'Eve', 0, []],
      ['frank', 'Eve > frank', 1, [ids.Eve]],
    ]);
  });

  test('tree paging follows the pre-order; a contact whose parent is on another page stands at the top level', async () => {
    const page2 = await list('format=tree&limit=2&page=2');
    expect(shapeOf(page2.body.data.contacts)).toEqual([
      { id: ids.Dave, name: 'Dave', parent_id: ids.bob, children: [] },
      { id: ids.Carol, name: 'Carol', parent_id: ids.Alice, children: [] },
    ]);
    // next_cursor: where a client may go on by cursor (docs/api.md, Paging)
    expect(page2.body.data.pagination).toEqual({ page: 2, limit: 2, total: 6, total_pages: 3, has_more: true, next_cursor: expect.any(String), format: 'tree' });
    const page3 = await list('format=tree&limit=2&page=3');
    expect(shapeOf(page3.body.data.contacts)).toEqual([
      { id: ids.Eve, name: 'Eve', parent_id: null, children: [{ id: ids.frank, name: 'frank', parent_id: ids.Eve, children: [] }] },
    ]);
    const page4 = await list('format=tree&limit=2&page=4');
    expect(page4.body.data.contacts).toEqual([]);
    expect(page4.body.data.statistics.total_contacts).toBe(6);
  });

  test('a filter keeps the pre-order and the true level, path and ancestors of each contact', async () => {
    const res = await list(`format=hierarchical&search=99955`);
    expect(res.body.data.contacts.map((c: Node) => [c.name, c.level, c.path])).toEqual([
      ['Alice', 0, 'Alice'],
      ['Dave', 2, 'Alice > bob > Dave'],
      ['Carol', 1, 'Alice > Carol'],
      ['frank', 1, 'Eve > frank'],
    ]);
    const tree = await list('format=tree&search=99955');
    // Dave's parent bob is filtered out: Dave stands at the top level with parent_id to attach it
    expect(shapeOf(tree.body.data.contacts)).toEqual([
      {
        id: ids.Alice,
        name: 'Alice',
        parent_id: null,
        children: [{ id: ids.Carol, name: 'Carol', parent_id: ids.Alice, children: [] }],
      },
      { id: ids.Dave, name: 'Dave', parent_id: ids.bob, children: [] },
      { id: ids.frank, name: 'frank', parent_id: ids.Eve, children: [] },
    ]);
    expect(tree.body.data.statistics.total_contacts).toBe(4);
    expect(tree.body.data.filters.search).toBe('99955');
  });

  test('parent_id lists the subtree below a contact, its children at the top level', async () => {
    const res = await list(`format=tree&parent_id=${ids.Alice}`);
    expect(shapeOf(res.body.data.contacts)).toEqual([
      { id: ids.bob, name: 'bob', parent_id: ids.Alice, children: [{ id: ids.Dave, name: 'Dave', parent_id: ids.bob, children: [] }] },
      { id: ids.Carol, name: 'Carol', parent_id: ids.Alice, children: [] },
    ]);
    expect(res.body.data.statistics).toEqual({
      total_contacts: 3,
      root_contacts: 0,
      child_contacts: 3,
      super_admins: 0,
      admins: 0,
      regular_users: 3,
    });
    expect(res.body.data.filters.parent_id).toBe(String(ids.Alice));
  });

  test('the unit tree endpoint gives the whole unit, unpaged, in each format', async () => {
    const tree = await request(ctx.app).get(`/api/contacts/unit/${unitId}`).set(bearer(admin));
    expect(tree.status).toBe(200);
    expect(tree.body.data.unit_id).toBe(unitId);
    expect(shapeOf(tree.body.data.contacts).length).toBe(2);
    const flat = await request(ctx.app).get(`/api/contacts/unit/${unitId}?format=hierarchical`).set(bearer(admin));
    expect(flat.body.data.contacts.map((c: Node) => c.path)).toEqual([
      'Alice',
      'Alice > bob',
      'Alice > bob > Dave',
      'Alice > Carol',
      'Eve',
      'Eve > frank',
    ]);
    expect(flat.body.data.statistics.total_contacts).toBe(6);
    expect(flat.body.data.filters).toEqual({
      search: '',
      department_id: null,
      format: 'hierarchical',
      include_inactive: false,
      role_filter: 'all',
    });
  });

  test('a rename moves the contact, with its subtree, to its new place among its siblings', async () => {
    const res = await request(ctx.app).put(`/api/contacts/${ids.bob}`).set(bearer(admin)).send({ name: 'Zack' });
    expect(res.status).toBe(200);
    const flat = await list('format=flat');
    expect(flat.body.data.contacts.map((c: Node) => c.name)).toEqual(['Alice', 'Carol', 'Zack', 'Dave', 'Eve', 'frank']);
    await request(ctx.app).put(`/api/contacts/${ids.bob}`).set(bearer(admin)).send({ name: 'bob' });
    expect(await treeProblems(ctx.db)).toEqual([]);
  });
});

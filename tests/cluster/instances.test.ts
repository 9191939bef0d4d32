import request from 'supertest';
import { isMysql } from '../helpers/config';
import { setupTestContext } from '../helpers/context';
import { anyDesignationId, bearer, createDepartment, createUnit, createUser, PASSWORD, unique, type TestUser } from '../helpers/factory';
import { START_TIMEOUT_MS, stopAll } from '../helpers/server-process';
import { treeProblems } from '../helpers/tree';
import { countedState, startThree, treeIds, type Instance } from './cluster-support';

/**
 * Several instances, one truth (issue #13): three processes of src/server.ts on one MariaDB
 * database and one Redis, each with its own pool, in-memory search index and caches. What one
 * of them changes, the others answer at once. MySQL only: SQLite is one process's file.
 */
const LOGIN_MAX = 4;
const CYCLE = 'Cannot move a contact under itself or one of its descendants';

const describeOnMysql = isMysql() ? describe : describe.skip;

jest.setTimeout(START_TIMEOUT_MS + 60_000);

describeOnMysql('three instances on one database and one Redis (MySQL only)', () => {
  const ctx = setupTestContext();
  let a: Instance, b: Instance, c: Instance;
  let three: Instance[];
  let dropKeys = async () => undefined as void;
  let admin: TestUser;

  beforeAll(async () => {
    admin = await createUser(ctx, { role: 'Super_admin' });
    const started = await startThree({
      // each its own index, built for the search version a search needs (so an answer from
      // B or C comes from B's or C's own index, never from a stale one)
      SEARCH_INDEX: 'memory',
      SEARCH_INDEX_REFRESH_MS: '0',
      LOGIN_RATE_LIMIT_MAX: String(LOGIN_MAX),
      LOGIN_IP_RATE_LIMIT_MAX: '1000',
      // the API limit is shared too, and is not what is tested here
      RATE_LIMIT_MAX: '100000',
    });
    dropKeys = started.dropKeys;
    three = started.instances;
    [a, b, c] = three;
  });

  afterAll(async () => {
    await stopAll();
    await dropKeys();
  });

  it('a contact created through A is found at once by the search and the listing search of B and C', async () => {
    const unitId = (await createUnit(ctx)).id;
    const term = unique('clu').toLowerCase();
    // B and C build their own index now, for the version before the change
    for (const other of [b, c]) {
      const before = await request(other.url).get('/api/contacts/search').query({ q: term }).set(bearer(admin));
      expect(before.status).toBe(200);
      expect(before.body.data.total).toBe(0);
    }

    const created = await request(a.url)
      .post('/api/contacts')
      .set(bearer(admin))
      .send({ name: `Cluster ${term}`, email: `${term}@cluster.test`, service_no: unique('CL'), phone: '01700000000', unit_id: unitId, designation_id: await anyDesignationId(ctx) });
    expect(created.status).toBe(201);
    const id = created.body.data.contact.id;

    for (const other of [b, c]) {
      const found = await request(other.url).get('/api/contacts/search').query({ q: term }).set(bearer(admin));
      expect([other.name, found.status, found.body.data.contacts.map((x: { id: number }) => x.id)]).toEqual([other.name, 200, [id]]);
      const listed = await request(other.url).get('/api/contacts').query({ search: term, format: 'flat' }).set(bearer(admin));
      expect([other.name, listed.status, listed.body.data.contacts.map((x: { id: number }) => x.id)]).toEqual([other.name, 200, [id]]);
    }
  });

  it('a password change through A makes the old access token 401 on B and C', async () => {
    const user = await createUser(ctx);
    // B and C have verified the token, and remember it as verified
    for (const other of three) expect((await request(other.url).get('/api/auth/profile').set(bearer(user))).status).toBe(200);

    const changed = await request(a.url)
      .put('/api/auth/change-password')
      .set(bearer(user))
      .send({ currentPassword: PASSWORD, newPassword: 'Cluster-Passw0rd!' });
    expect(changed.status).toBe(200);

    for (const other of [b, c]) {
      const old = await request(other.url).get('/api/auth/profile').set(bearer(user));
      expect([other.name, old.status]).toEqual([other.name, 401]);
      const fresh = await request(other.url).get('/api/auth/profile').set(bearer(changed.body.data));
      expect([other.name, fresh.status]).toEqual([other.name, 200]);
    }
  });

  it(`the failed sign-ins of one account are counted once across the three: ${LOGIN_MAX} are let through, not ${3 * LOGIN_MAX}`, async () => {
    const user = await createUser(ctx);
    const attempts = await Promise.all(
      Array.from({ length: 3 * LOGIN_MAX }, (_, i) =>
        request(three[i % 3].url).post('/api/auth/login').send({ email: user.email, password: 'Wr0ng-password' }),
      ),
    );
    const statuses = attempts.map((r) => r.status);
    expect(statuses.filter((s) => s === 401)).toHaveLength(LOGIN_MAX);
    expect(statuses.filter((s) => s === 429)).toHaveLength(2 * LOGIN_MAX);

    // and every instance now refuses even the right password
    for (const instance of three) {
      const blocked = await request(instance.url).post('/api/auth/login').send({ email: user.email, password: PASSWORD });
      expect([instance.name, blocked.status, blocked.body.message]).toEqual([instance.name, 429, 'Too many login attempts, please try again later']);
    }
  });

  it('50 conflicting moves spread over the three at once leave no cycle and lose no contact; some are refused with 400, none fails', async () => {
    const unitId = (await createUnit(ctx)).id;
    const people: number[] = [];
    // a start with parents and children, so that some moves are swaps of a parent and its child
    for (let i = 0; i < 8; i++) {
      const parent = i % 3 === 0 ? null : people[i - 1];
      people.push((await createUser(ctx, { unit_id: unitId, parent_id: parent, name: `Racer ${i}` })).id);
    }
    // each pair both ways (a under b, b under a: one of the two must be refused if both run
    // unchanged), and now and then a to the root with b under it
    const moves: Array<[number, number | null]> = [];
    for (let i = 0; moves.length < 50; i++) {
      const [x, y] = [people[i % 8], people[(i * 3 + 1) % 8]];
      if (x === y) continue;
      moves.push(...(i % 4 === 3 ? [[x, null], [y, x]] : [[x, y], [y, x]]) as Array<[number, number | null]>);
    }
    const answers = await Promise.all(
      moves.slice(0, 50).map(([id, parent], i) =>
        request(three[i % 3].url).put(`/api/contacts/${id}/move`).set(bearer(admin)).send({ parent_id: parent }),
      ),
    );

    const statuses = answers.map((r) => r.status);
    expect(statuses.filter((s) => s !== 200 && s !== 400)).toEqual([]);
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThan(0);
    const refused = answers.filter((r) => r.status === 400);
    expect(refused.length).toBeGreaterThan(0);
    for (const res of refused) expect(res.body.message).toBe(CYCLE);
    for (const instance of three) expect([instance.name, instance.errorsLogged()]).toEqual([instance.name, []]);

    // from the database: the same eight, all active, every parent chain ends at a root of the unit
    const rows = await ctx.db('users').where({ unit_id: unitId }).select('id', 'parent_id', 'is_active');
    expect(rows.map((r) => Number(r.id)).sort((p, q) => p - q)).toEqual([...people].sort((p, q) => p - q));
    expect(rows.every((r) => Number(r.is_active) === 1)).toBe(true);
    const parentOf = new Map(rows.map((r) => [Number(r.id), r.parent_id === null ? null : Number(r.parent_id)]));
    for (const id of people) {
      let at: number | null = id;
      for (let steps = 0; at !== null; steps++) {
        expect(steps).toBeLessThan(people.length);
        at = parentOf.get(at)!;
      }
    }
    expect(await treeProblems(ctx.db)).toEqual([]);

    // from the API: each instance shows the same tree of all eight
    const trees = await Promise.all(
      three.map((instance) => request(instance.url).get('/api/contacts').query({ unit_id: unitId, format: 'tree' }).set(bearer(admin))),
    );
    for (const tree of trees) expect(treeIds(tree.body.data.contacts)).toEqual([...people].sort((p, q) => p - q));
    expect(trees[1].body.data.contacts).toEqual(trees[0].body.data.contacts);
    expect(trees[2].body.data.contacts).toEqual(trees[0].body.data.contacts);
  });

  it('the cached statistics and hierarchy of the three agree after a change through one of them', async () => {
    const unit = await createUnit(ctx);
    const department = await createDepartment(ctx, unit.id);
    await createUser(ctx, { unit_id: unit.id, department_id: department.id });
    const counts = async (instance: Instance) => {
      const res = await request(instance.url).get('/api/contacts/organizational-hierarchy').set(bearer(admin));
      expect(res.status).toBe(200);
      const node = findUnit(res.body.data.hierarchy.units, unit.id);
      const listed = await request(instance.url).get('/api/contacts').query({ unit_id: unit.id }).set(bearer(admin));
      return [instance.name, node.total_users, node.departments[0].total_users, listed.body.data.statistics.total_contacts];
    };
    // each instance caches its counters, for the version before the change
    for (const instance of three) {
      expect(await counts(instance)).toEqual([instance.name, 1, 1, 1]);
      expect((await request(instance.url).get('/api/contacts/statistics').set(bearer(admin))).status).toBe(200);
    }

    const created = await request(a.url)
      .post('/api/contacts')
      .set(bearer(admin))
      .send({ name: unique('Counted '), email: `${unique('counted')}@cluster.test`, service_no: unique('CS'), phone: '01700000000', unit_id: unit.id, department_id: department.id, designation_id: await anyDesignationId(ctx) });
    expect(created.status).toBe(201);

    // what only this test changes: exact on every instance
    for (const instance of three) expect(await counts(instance)).toEqual([instance.name, 2, 2, 2]);

    // the whole directory's counters: other test files change the shared database meanwhile,
    // so the three are compared in a round during which nothing they count changed
    for (let round = 0; ; round++) {
      const before = await countedState(ctx.db);
      const answers = await Promise.all(
        three.flatMap((instance) => [
          request(instance.url).get('/api/contacts/statistics').set(bearer(admin)),
          request(instance.url).get('/api/contacts/organizational-hierarchy').set(bearer(admin)),
        ]),
      );
      if ((await countedState(ctx.db)) !== before) {
        if (round < 30) {
          await new Promise((resolve) => setTimeout(resolve, 100));
          continue;
        }
        throw new Error('the shared database changed during every one of 30 rounds; nothing to compare');
      }
      const [statistics, hierarchies] = [0, 1].map((k) => answers.filter((_, i) => i % 2 === k).map((r) => JSON.stringify(r.body.data)));
      expect(new Set(statistics).size).toBe(1);
      expect(new Set(hierarchies).size).toBe(1);
      break;
    }
  });

  it('the ETags of the three agree: a tag from one is a 304 on the others until a change through any of them', async () => {
    const unit = await createUnit(ctx);
    const member = await createUser(ctx, { unit_id: unit.id });
    const path = `/api/contacts/${member.id}`;
    const get = (instance: Instance, ifNoneMatch?: string) => {
      const req = request(instance.url).get(path).set(bearer(admin));
      return ifNoneMatch ? req.set('If-None-Match', ifNoneMatch) : req;
    };
    // other test files bump the shared versions meanwhile: the three agree in a round during
    // which nothing changed (the tag read again from A is the same)
    for (let round = 0; ; round++) {
      const tag = (await get(a)).headers.etag as string;
      const [onB, onC] = await Promise.all([get(b, tag), get(c, tag)]);
      const after = (await get(a)).headers.etag as string;
      if (after !== tag) {
        if (round < 30) continue;
        throw new Error('the shared database changed during every one of 30 rounds; nothing to compare');
      }
      expect([onB.status, onB.headers.etag, onC.status, onC.headers.etag]).toEqual([304, tag, 304, tag]);
      break;
    }

    // B reads the member, A changes it: B's tag no longer holds on C, for a read or a change
    const seenByB = (await get(b)).headers.etag as string;
    expect((await request(a.url).put(path).set(bearer(admin)).send({ phone: '01799999999' })).status).toBe(200);
    expect((await get(c, seenByB)).status).toBe(200);
    const stale = await request(c.url).put(path).set(bearer(admin)).set('If-Match', seenByB).send({ phone: '01788888888' });
    expect(stale.status).toBe(412);
    expect(stale.body.message).toBe('Contact was changed by someone else');
    const fresh = (await get(c)).headers.etag as string;
    expect((await request(b.url).put(path).set(bearer(admin)).set('If-Match', fresh).send({ phone: '01788888888' })).status).toBe(200);
  });
});

type HierarchyNode = { id: number; total_users: number; departments: Array<{ total_users: number }>; children: HierarchyNode[] };

function findUnit(units: HierarchyNode[], id: number): HierarchyNode {
  const stack = [...units];
  while (stack.length > 0) {
    const unit = stack.pop()!;
    if (unit.id === id) return unit;
    stack.push(...unit.children);
  }
  throw new Error(`unit ${id} is not in the hierarchy`);
}

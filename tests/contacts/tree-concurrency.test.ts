import request from 'supertest';
import { setupOwnTestContext } from '../helpers/context';
import { anyDesignationId, bearer, createUnit, createUser, unique, type TestUser } from '../helpers/factory';
import { isMysql } from '../helpers/config';
import { treeProblems } from '../helpers/tree';

// A bigger pool than the default, so that many transactions really overlap on MySQL; a database
// of its own, so that every derived column is checked after (treeProblems' `whole`).
const ctx = setupOwnTestContext('concurrency', { DB_POOL_MAX: '20' });

describe(`concurrent tree changes (${isMysql() ? 'MySQL' : 'SQLite'})`, () => {
  let admin: TestUser;

  beforeAll(async () => {
    admin = await createUser(ctx, { role: 'Super_admin' });
  });

  test('50 concurrent conflicting moves create no cycle and lose no contact', async () => {
    const unitId = (await createUnit(ctx)).id;
    const people: number[] = [];
    for (let i = 0; i < 10; i++) people.push((await createUser(ctx, { unit_id: unitId, name: `Racer ${i}` })).id);
    // every pair is moved both ways at once (a under b, b under a): only one of each can win
    const moves: Array<[number, number]> = [];
    for (let i = 0; moves.length < 50; i++) {
      const a = people[i % 10];
      const b = people[(i * 3 + 1) % 10];
      if (a === b) continue;
      moves.push([a, b], [b, a]);
    }
    const answers = await Promise.all(
      moves.slice(0, 50).map(([id, parent]) =>
        request(ctx.app).put(`/api/contacts/${id}/move`).set(bearer(admin)).send({ parent_id: parent }),
      ),
    );
    for (const res of answers) expect([200, 400]).toContain(res.status);
    expect(answers.filter((r) => r.status === 200).length).toBeGreaterThan(0);

    expect(await treeProblems(ctx.db, { whole: true })).toEqual([]);
    const rows = await ctx.db('users').where({ unit_id: unitId }).select('id', 'is_active');
    expect(rows.map((r) => Number(r.id)).sort()).toEqual([...people].sort());
    expect(rows.every((r) => Number(r.is_active) === 1)).toBe(true);
    const listed = await request(ctx.app).get(`/api/contacts?unit_id=${unitId}&format=flat`).set(bearer(admin));
    expect(listed.body.data.contacts).toHaveLength(10);
  }, 60_000);

  test('concurrent bulk moves and deletes keep every invariant', async () => {
    const unitId = (await createUnit(ctx)).id;
    const people: number[] = [];
    for (let i = 0; i < 12; i++) people.push((await createUser(ctx, { unit_id: unitId, name: `Mover ${i}` })).id);
    const calls = [];
    for (let i = 0; i < 24; i++) {
      const a = people[i % 12];
      const b = people[(i * 5 + 7) % 12];
      if (i % 6 === 5) calls.push(request(ctx.app).delete(`/api/contacts/${people[(i * 7) % 12]}`).set(bearer(admin)));
      else calls.push(request(ctx.app).post('/api/contacts/bulk-move').set(bearer(admin)).send({ contactIds: [a], parent_id: b === a ? null : b }));
    }
    const answers = await Promise.all(calls);
    for (const res of answers) expect([200, 400, 404]).toContain(res.status);
    expect(await treeProblems(ctx.db, { whole: true })).toEqual([]);
    expect(await ctx.db('users').where({ unit_id: unitId }).count({ n: '*' })).toEqual([{ n: 12 }]);
  }, 60_000);

  test('racing creates with one e-mail: the unique key decides, the others get the specified 400', async () => {
    const unitId = (await createUnit(ctx)).id;
    const designationId = await anyDesignationId(ctx);
    const email = `${unique('race')}@race.test`;
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        request(ctx.app)
          .post('/api/contacts')
          .set(bearer(admin))
          .send({ name: `Racer ${i}`, email, service_no: unique('R'), phone: '01700000000', unit_id: unitId, designation_id: designationId }),
      ),
    );
    expect(answers.filter((r) => r.status === 201)).toHaveLength(1);
    for (const res of answers.filter((r) => r.status !== 201)) {
      expect(res.status).toBe(400);
      expect(res.body.message).toBe('Service number or email already exists');
    }
    expect(await ctx.db('users').where({ email }).count({ n: '*' })).toEqual([{ n: 1 }]);
  }, 60_000);
});

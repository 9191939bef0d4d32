import request from 'supertest';
import { coalescedById, type Db } from '../../src/lib/db';
import { setupTestContext } from '../helpers/context';
import { bearer, createUser, type TestUser } from '../helpers/factory';

/**
 * coalescedById (src/lib/db/prepared.ts): reads by id asked in one round of the event loop go
 * to the database as one statement; each caller gets its own row; nothing is kept between
 * rounds. The session of every request and GET /api/contacts/:id read this way. Statements are
 * counted as the connections borrowed from the pool (one per statement, preparedQuery).
 */
const ctx = setupTestContext();
let users: TestUser[];

beforeAll(async () => {
  users = [];
  for (let i = 0; i < 3; i++) users.push(await createUser(ctx));
});

const nameRead = (db: Db) => coalescedById(db, (ids) => db('users as u').select('u.id', 'u.name').whereIn('u.id', ids));

/** Runs `work` and counts the connections it borrows from the pool (a statement each). */
async function statementsOf<T>(work: () => Promise<T>): Promise<{ result: T; statements: number }> {
  const client = ctx.db.client as { acquireConnection: () => Promise<unknown> };
  const original = client.acquireConnection;
  let statements = 0;
  client.acquireConnection = function (this: unknown) {
    statements++;
    return original.call(this);
  };
  try {
    return { result: await work(), statements };
  } finally {
    client.acquireConnection = original;
  }
}

test('reads in one round share one statement; each caller gets its row, a repeated id its row again, a missing one undefined', async () => {
  const read = nameRead(ctx.db);
  const [a, b, c] = users;
  const ids = [a.id, b.id, a.id, 2_000_000_000, c.id, b.id];
  const { result, statements } = await statementsOf(() => Promise.all(ids.map((id) => read(id))));
  expect(statements).toBe(1);
  const names = Object.fromEntries(await Promise.all(users.map(async (u) => [u.id, (await ctx.db('users').where({ id: u.id }).first('name')).name])));
  expect(result.map((row) => row && { id: Number(row.id), name: row.name })).toEqual(
    ids.map((id) => (names[id] === undefined ? undefined : { id, name: names[id] })),
  );
});

test('reads in separate rounds are separate statements, and each sees what was committed before it was asked', async () => {
  const read = nameRead(ctx.db);
  const [a] = users;
  const { result, statements } = await statementsOf(async () => {
    const before = await read(a.id);
    await ctx.db('users').where({ id: a.id }).update({ name: 'Coalesced, renamed' });
    const after = await read(a.id);
    return [before?.name, after?.name];
  });
  expect(statements).toBe(3);
  expect(result[0]).not.toBe('Coalesced, renamed');
  expect(result[1]).toBe('Coalesced, renamed');
});

test('more ids in a round than the largest prepared size are read in chunks, every row right', async () => {
  const read = nameRead(ctx.db);
  // the test's users among 40 distinct ids, the rest of them no user's
  const ids = Array.from({ length: 40 }, (_, i) => (i % 10 === 0 && users[i / 10] ? users[i / 10].id : 2_000_000_000 + i));
  const { result, statements } = await statementsOf(() => Promise.all(ids.map((id) => read(id))));
  expect(statements).toBe(2);
  expect(result.map((row) => (row ? Number(row.id) : undefined))).toEqual(ids.map((id) => (id < 2_000_000_000 ? id : undefined)));
});

test('a failed statement fails every read of its round, and the next round reads again', async () => {
  const broken = coalescedById(ctx.db, (ids) => ctx.db('users as u').select('u.no_such_column').whereIn('u.id', ids));
  const settled = await Promise.allSettled(users.map((u) => broken(u.id)));
  expect(settled.map((s) => s.status)).toEqual(['rejected', 'rejected', 'rejected']);
  const read = nameRead(ctx.db);
  expect(Number((await read(users[0].id))?.id)).toBe(users[0].id);
});

test('through the API: concurrent requests of several users, each answered as its own session and its own contact', async () => {
  const responses = await Promise.all(
    users.flatMap((caller) => users.map((target) => request(ctx.app).get(`/api/contacts/${target.id}`).set(bearer(caller)))),
  );
  expect(responses.map((r) => r.status)).toEqual(new Array(9).fill(200));
  expect(responses.map((r) => r.body.data.contact.id)).toEqual(users.flatMap(() => users.map((u) => u.id)));
  const profiles = await Promise.all(users.map((caller) => request(ctx.app).get('/api/auth/profile').set(bearer(caller))));
  expect(profiles.map((r) => r.body.data.user.id)).toEqual(users.map((u) => u.id));
});

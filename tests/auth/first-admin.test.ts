import request from 'supertest';
import { seedDatabase } from '../../seeds';
import { createLogger } from '../../src/lib/logger';
import { openOwnSeededDb, setupTestContext } from '../helpers/context';

/** DECISIONS 9: the first Super_admin comes from ADMIN_EMAIL / ADMIN_PASSWORD, once. */
const ctx = setupTestContext();

test('signs in with ADMIN_EMAIL and ADMIN_PASSWORD as a Super_admin of organization 1', async () => {
  const res = await request(ctx.app).post('/api/auth/login').send({ email: ctx.config.admin.email, password: ctx.config.admin.password });
  expect(res.status).toBe(200);
  expect(res.body.data.user).toMatchObject({ email: ctx.config.admin.email, name: ctx.config.admin.name, role: 'Super_admin' });
  const row = await ctx.db('users').where({ email: ctx.config.admin.email }).first('organization_id');
  expect(Number(row.organization_id)).toBe(1);
});

// Counts the whole database, so it runs on one no other test file writes to (on MySQL the
// shared test database gains users from files running beside this one).
test('seeding again adds no second administrator and changes no count', async () => {
  const { db, config, done } = await openOwnSeededDb('first_admin');
  try {
    const count = async (table: string) => Number((await db(table).count({ n: '*' }))[0].n);
    const tables = ['users', 'roles', 'role_permissions', 'organizations', 'units', 'designations', 'divisions', 'districts', 'thanas'];
    const before = await Promise.all(tables.map(count));
    expect(before.every((n) => n > 0)).toBe(true);
    await seedDatabase(db, config, createLogger({ level: 'silent' }));
    expect(await Promise.all(tables.map(count))).toEqual(before);
    expect(await db('users').where({ email: config.admin.email }).count({ n: '*' })).toEqual([{ n: 1 }]);
  } finally {
    await done();
  }
}, 120_000);

import { spawnSync } from 'node:child_process';
import path from 'node:path';
import request from 'supertest';
import { checkDirectory, directorySound, repairDirectory } from '../../src/modules/contacts';
import { setupOwnTestContext } from '../helpers/context';
import { bearer, createUnit, createUser, type TestUser } from '../helpers/factory';

/**
 * The check of the directory's derived columns (src/modules/contacts/tree/integrity.ts,
 * `npm run directory:check`): each kind of damage is found, and only where it is; --repair
 * rebuilds it under the directory lock, and the API then lists the tree as it should.
 */
const ctx = setupOwnTestContext('check');
let admin: TestUser;
let chain: number[];

beforeAll(async () => {
  admin = await createUser(ctx, { role: 'Super_admin' });
  const unitId = (await createUnit(ctx)).id;
  chain = [];
  // a chain of four, and two siblings under its second
  for (let i = 0; i < 6; i++) {
    const parent = i < 4 ? (chain[i - 1] ?? null) : chain[1];
    chain.push((await createUser(ctx, { unit_id: unitId, parent_id: parent, name: `Checked ${String.fromCharCode(65 + i)}` })).id);
  }
});

const cli = (args: string[]) =>
  spawnSync(process.execPath, [require.resolve('tsx/cli'), 'src/cli.ts', 'directory:check', ...args], {
    cwd: path.join(__dirname, '..', '..'),
    env: { ...process.env, ...(ctx.config.db.client === 'sqlite' ? { DB_CLIENT: 'sqlite', SQLITE_FILENAME: ctx.config.db.sqliteFilename } : { DB_NAME: ctx.config.db.database }), LOG_LEVEL: 'silent' },
    encoding: 'utf8',
  });

test('a directory written through the API is sound', async () => {
  const report = await checkDirectory(ctx.db);
  expect(directorySound(report)).toBe(true);
  expect(report.contacts).toBeGreaterThanOrEqual(7);
});

test('finds each kind of damage where it is, and the repair rebuilds it', async () => {
  const [a, b, c, d, e] = chain;
  const row = async (id: number) => ctx.db('users').where({ id }).first('tree_ord', 'depth');
  const ordOf = async (id: number) => Number((await row(id)).tree_ord);
  await ctx.db('users').where({ id: c }).update({ depth: 17 });
  // d's label moved before its parent's: out of the pre-order
  await ctx.db('users').where({ id: d }).update({ tree_ord: (await ordOf(a)) - 1 });
  await ctx.db('users').where({ id: e }).update({ sort_name: 'not its name' });
  // b's grams lose one and gain one it has no field for
  const gram = (await ctx.db('contact_search_grams').where({ contact_id: b }).first('gram')).gram;
  await ctx.db('contact_search_grams').where({ contact_id: b, gram }).delete();
  await ctx.db('contact_search_grams').insert({ contact_id: b, gram: 1 });

  const found = await checkDirectory(ctx.db);
  expect(found.depth).toEqual({ count: 1, ids: [c] });
  expect(found.order.ids).toContain(d);
  expect(found.sort_name).toEqual({ count: 1, ids: [e] });
  expect(found.grams).toEqual({ count: 1, ids: [b] });
  expect(found.cycle.count + found.orphan.count).toBe(0);

  const before = await repairDirectory(ctx.db);
  expect(before.depth.ids).toEqual([c]);
  expect(directorySound(await checkDirectory(ctx.db))).toBe(true);
  expect(Number((await row(c)).depth)).toBe(2);

  // the API's tree is the parent links' again: the chain in order, b's children by name
  const listed = await request(ctx.app).get(`/api/contacts/${a}/children`).set(bearer(admin));
  expect(listed.status).toBe(200);
  const flat = await request(ctx.app).get(`/api/contacts?format=flat&limit=100&unit_id=${(await ctx.db('users').where({ id: a }).first('unit_id')).unit_id}`).set(bearer(admin));
  expect(flat.body.data.contacts.map((x: { id: number }) => x.id)).toEqual([a, b, c, d, e, chain[5]]);
  const search = await request(ctx.app).get(`/api/contacts/search?q=${encodeURIComponent('Checked B')}`).set(bearer(admin));
  expect(search.body.data.contacts.map((x: { id: number }) => x.id)).toEqual([b]);
});

test('a parent link that loops is reported and left to a person; the command exits 1 while it stays', async () => {
  const [, , , , e, f] = chain;
  await ctx.db('users').where({ id: e }).update({ parent_id: f });
  await ctx.db('users').where({ id: f }).update({ parent_id: e });
  try {
    const found = await checkDirectory(ctx.db);
    expect(found.cycle.ids.sort()).toEqual([e, f].sort());
    const run = cli(['--repair']);
    expect(run.status).toBe(1);
    expect(run.stdout).toMatch(/cycle\s+2 wrong/);
  } finally {
    await ctx.db('users').where({ id: e }).update({ parent_id: chain[1] });
    await ctx.db('users').where({ id: f }).update({ parent_id: chain[1] });
  }
  const run = cli([]);
  expect(run.stdout).toMatch(/cycle\s+ok/);
  expect(run.status).toBe(0);
}, 60_000);

test('--respace labels a sound order afresh, evenly spread, in the same order: a dense run no longer waits for a move to spread it', async () => {
  const labelsInOrder = async () => ctx.db('users').where('tree_ord', '>', 0).orderBy('tree_ord').select('id', 'tree_ord');
  const before = await labelsInOrder();
  // packed one apart from the first label on, as an import before GROUP_SPACING left its rows
  const first = Number(before[0].tree_ord);
  for (const [i, r] of before.entries()) await ctx.db('users').where({ id: r.id }).update({ tree_ord: first + i });
  expect(directorySound(await checkDirectory(ctx.db))).toBe(true);

  const run = cli(['--respace']);
  expect(run.status).toBe(0);
  expect(run.stdout).toMatch(/after the repair:/);
  const after = await labelsInOrder();
  expect(after.map((r) => Number(r.id))).toEqual(before.map((r) => Number(r.id)));
  const gaps = after.slice(1).map((r, i) => Number(r.tree_ord) - Number(after[i].tree_ord));
  expect(Math.min(...gaps)).toBeGreaterThanOrEqual(2 ** 20);
  expect(directorySound(await checkDirectory(ctx.db))).toBe(true);
}, 60_000);

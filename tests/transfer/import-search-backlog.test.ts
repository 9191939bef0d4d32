import request from 'supertest';
import { changeDirectory } from '../../src/modules/contacts';
import { drainSearchBacklog } from '../../src/modules/contacts/data/backlog';
import { contactGrams, SEARCH_FIELDS } from '../../src/modules/contacts/domain/grams';
import { insertContactForest, type ForestContact } from '../../src/modules/contacts/data/forest.writer';
import { setupOwnTestContext } from '../helpers/context';
import { bearer, createUnit, createUser, unique, type TestUser } from '../helpers/factory';
import { csv, HEADER, importCsv, tagOf } from './transfer-support';

/**
 * The search backlog (src/modules/contacts/search/backlog.ts): an import commits its contacts
 * with their ids listed, not with their trigram rows, which a drain writes after the commit.
 * A database of its own: a drain takes every listed contact, so another file's import would
 * drain these tests' contacts. SEARCH_INDEX=sql, so every search here reads the trigram table.
 */
const ctx = setupOwnTestContext('backlog', { SEARCH_INDEX: 'sql' });

const listed = async (ids: number[]) => (await ctx.db('contact_search_backlog').whereIn('contact_id', ids).pluck('contact_id')).map(Number).sort((a, b) => a - b);
const gramRows = (ids: number[]) => ctx.db('contact_search_grams').whereIn('contact_id', ids).count({ n: '*' }).first();

/** The trigram rows each contact must have: those of its current values, no more, no fewer. */
async function expectGramsOfCurrentValues(ids: number[]) {
  const rows = await ctx.db('users').whereIn('id', ids).select('id', ...SEARCH_FIELDS);
  expect(rows).toHaveLength(ids.length);
  for (const row of rows) {
    const stored = (await ctx.db('contact_search_grams').where({ contact_id: row.id }).pluck('gram')).map(Number).sort((a, b) => a - b);
    expect(stored).toEqual(contactGrams(row));
  }
}

let admin: TestUser;
let unit: { id: number; name: string };
let designationId: number;
beforeAll(async () => {
  unit = await createUnit(ctx);
  admin = await createUser(ctx, { role: 'Super_admin' });
  designationId = Number((await ctx.db('designations').orderBy('id').first('id')).id);
});

/** New contacts of a forest (a root and `children` under it) whose names hold `tag`, written as an import writes them. */
async function insertForest(tag: string, children: number): Promise<number[]> {
  const person = (i: number, parent: ForestContact['parent']): ForestContact => {
    const sn = unique('BL').toLowerCase();
    return { name: `Listed ${tag} ${i}`, email: `${sn}@backlog.test`, service_no: sn, phone: '01700000000', unit_id: unit.id, designation_id: designationId, parent };
  };
  const root = person(0, null);
  const rows = [root, ...Array.from({ length: children }, (_, i) => person(i + 1, { serviceNo: root.service_no }))];
  const ids = await changeDirectory(ctx.db, (trx) => insertContactForest(trx, rows));
  return [...ids.values()].sort((a, b) => a - b);
}

const searchIds = async (q: string) => {
  const res = await request(ctx.app).get('/api/contacts/search').query({ q, limit: 100 }).set(bearer(admin));
  expect(res.status).toBe(200);
  return (res.body.data.contacts as Array<{ id: number }>).map((c) => c.id).sort((a, b) => a - b);
};
const listIds = async (search: string) => {
  const res = await request(ctx.app).get('/api/contacts').query({ search, format: 'flat', limit: 100 }).set(bearer(admin));
  expect(res.status).toBe(200);
  return (res.body.data.contacts as Array<{ id: number }>).map((c) => c.id).sort((a, b) => a - b);
};

describe('the search backlog: an import\'s search grams, written after its commit', () => {
  it('lists the new contacts instead of writing their grams; the SQL search finds them meanwhile; a drain writes exactly their grams and unlists them', async () => {
    const tag = unique('bq').toLowerCase();
    const ids = await insertForest(tag, 4);
    expect(await listed(ids)).toEqual(ids);
    expect(Number((await gramRows(ids))!.n)).toBe(0);
    // found through the backlog: a term of three characters and more, and one of two
    expect(await searchIds(tag)).toEqual(ids);
    expect(await listIds(tag)).toEqual(ids);
    expect(await searchIds(`${tag} 3`)).toEqual([ids[3]]);

    expect(await drainSearchBacklog(ctx.db)).toBe(ids.length);
    expect(await listed(ids)).toEqual([]);
    await expectGramsOfCurrentValues(ids);
    // found through their grams now
    expect(await searchIds(tag)).toEqual(ids);
    expect(await listIds(tag)).toEqual(ids);
    expect(await drainSearchBacklog(ctx.db)).toBe(0);
  });

  it('a contact changed while listed gets the grams of its new values, and no error for those its update wrote already', async () => {
    const tag = unique('bc').toLowerCase();
    const ids = await insertForest(tag, 1);
    const renamed = unique('br').toLowerCase();
    const res = await request(ctx.app).put(`/api/contacts/${ids[1]}`).set(bearer(admin)).send({ name: `Renamed ${renamed}` });
    expect(res.status).toBe(200);
    expect(await listed(ids)).toEqual(ids);

    expect(await drainSearchBacklog(ctx.db)).toBe(2);
    await expectGramsOfCurrentValues(ids);
    expect(await searchIds(renamed)).toEqual([ids[1]]);
    expect(await searchIds(tag)).toEqual([ids[0]]);
  });

  it('two drains at once write each contact once between them and leave none listed', async () => {
    const tag = unique('bd').toLowerCase();
    const ids = await insertForest(tag, 300);
    const [a, b] = await Promise.all([drainSearchBacklog(ctx.db, 200), drainSearchBacklog(ctx.db, 200)]);
    // MySQL: the second skips the entries the first has claimed; SQLite: one after the other
    let rest = 0;
    for (let n = await drainSearchBacklog(ctx.db, 200); n > 0; n = await drainSearchBacklog(ctx.db, 200)) rest += n;
    expect(a + b + rest).toBe(ids.length);
    expect(await listed(ids)).toEqual([]);
    await expectGramsOfCurrentValues(ids);
  });

  it('a listed contact that is no longer in the table just leaves the list', async () => {
    const [{ max }] = await ctx.db('users').max({ max: 'id' });
    const gone = Number(max) + 1000;
    await ctx.db('contact_search_backlog').insert({ contact_id: gone });
    expect(await drainSearchBacklog(ctx.db)).toBe(1);
    expect(await listed([gone])).toEqual([]);
    expect(Number((await gramRows([gone]))!.n)).toBe(0);
  });

  it('after an import through the API, the service drains the backlog by itself', async () => {
    const [a, b] = [tagOf(), tagOf()];
    const unitCode = String((await ctx.db('units').where({ id: unit.id }).first('code')).code);
    const designation = String((await ctx.db('designations').where({ id: designationId }).first('name')).name);
    const row = (sn: string, parent = '') => [`Imported ${sn}`, sn, `${sn.toLowerCase()}@backlog.test`, '01700000000', unitCode, designation, parent];
    const res = await importCsv(ctx, admin, csv([HEADER, row(b, a), row(a)]));
    expect(res.status).toBe(200);
    expect(res.body.data.created).toBe(2);
    const idOf = async (sn: string) => Number((await ctx.db('users').where({ service_no: sn }).first('id')).id);
    const ids = [await idOf(a), await idOf(b)];
    // the drain was started when the import answered: wait for it (at most 10 s)
    for (let waited = 0; (await listed(ids)).length > 0 && waited < 10_000; waited += 50) await new Promise((r) => setTimeout(r, 50));
    expect(await listed(ids)).toEqual([]);
    await expectGramsOfCurrentValues(ids);
    expect(await searchIds(`imported ${b}`)).toEqual([ids[1]]);
  });

  it('an upsert of more contacts than the writer makes at once (2,000) gives each the grams of its new values', async () => {
    const tag = tagOf('UG');
    const unitCode = String((await ctx.db('units').where({ id: unit.id }).first('code')).code);
    const designation = String((await ctx.db('designations').where({ id: designationId }).first('name')).name);
    const sns = Array.from({ length: 2050 }, (_, i) => `${tag}-${i}`);
    const row = (sn: string, name: string, phone: string) => [name, sn, `${sn.toLowerCase()}@backlog.test`, phone, unitCode, designation, ''];
    expect((await importCsv(ctx, admin, csv([HEADER, ...sns.map((sn) => row(sn, `Before ${sn}`, '01700000000'))]))).status).toBe(200);
    while ((await drainSearchBacklog(ctx.db)) > 0);
    const res = await importCsv(ctx, admin, csv([HEADER, ...sns.map((sn, i) => row(sn, `After ${sn}`, `0181${String(i).padStart(7, '0')}`))]), '?mode=upsert');
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ created: 0, updated: sns.length, unchanged: 0 });
    const users = await ctx.db('users').whereIn('service_no', sns).select('id', ...SEARCH_FIELDS);
    const stored = new Map<number, number[]>();
    for (const g of await ctx.db('contact_search_grams').whereIn('contact_id', users.map((u) => u.id)).select('contact_id', 'gram')) {
      stored.set(Number(g.contact_id), [...(stored.get(Number(g.contact_id)) ?? []), Number(g.gram)]);
    }
    for (const u of users) expect((stored.get(Number(u.id)) ?? []).sort((a, b) => a - b)).toEqual(contactGrams(u));
    expect(await searchIds(`after ${sns[2049]}`.toLowerCase())).toEqual([Number(users.find((u) => u.service_no === sns[2049])!.id)]);
  }, 120_000);
});

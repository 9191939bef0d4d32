import request from 'supertest';
import { bearer } from '../helpers/factory';
import { BASE, ISO_MS, setupLocationsContext } from './helpers';

/** The seeded geography of Bangladesh, read back from the seeded rows (never from the JSON). */
const ctx = setupLocationsContext();
const api = () => request(ctx.app);

interface Place {
  id: number;
  name: string;
  code: string | null;
  is_active: number;
  [field: string]: unknown;
}

async function get(path: string) {
  const res = await api().get(`${BASE}${path}`).set(bearer(ctx.user));
  expect(res.status).toBe(200);
  return res.body.data;
}

let bangladesh: Place;
let divisions: Place[];
const byName = (places: Place[], name: string): Place => {
  const found = places.find((p) => p.name === name);
  if (!found) throw new Error(`${name} is not among ${places.map((p) => p.name).join(', ')}`);
  return found;
};
const districtsOf = async (division: string): Promise<Place[]> =>
  (await get(`/districts/division/${byName(divisions, division).id}`)).districts;
const thanasOf = async (division: string, district: string): Promise<Place[]> =>
  (await get(`/thanas/district/${byName(await districtsOf(division), district).id}`)).thanas;

beforeAll(async () => {
  const found = (await get('/countries?search=Bangladesh')).countries.filter((c: Place) => c.name === 'Bangladesh');
  expect(found).toHaveLength(1);
  bangladesh = found[0];
  divisions = (await get(`/divisions/country/${bangladesh.id}`)).divisions;
});

describe('seeded locations', () => {
  test('Bangladesh is an active country with code BD', () => {
    expect(bangladesh).toMatchObject({ name: 'Bangladesh', code: 'BD', is_active: 1 });
    expect(bangladesh.created_at).toMatch(ISO_MS);
  });

  test('Bangladesh has the 8 divisions, by name', () => {
    expect(divisions.map((d) => d.name)).toEqual([
      'Barishal', 'Chattogram', 'Dhaka', 'Khulna', 'Mymensingh', 'Rajshahi', 'Rangpur', 'Sylhet',
    ]);
    expect(byName(divisions, 'Dhaka')).toMatchObject({ code: '30', country_id: bangladesh.id, country_name: 'Bangladesh' });
  });

  test.each([
    ['Dhaka', 13],
    ['Chattogram', 11],
    ['Rajshahi', 8],
    ['Khulna', 10],
    ['Barishal', 6],
    ['Sylhet', 4],
    ['Rangpur', 8],
    ['Mymensingh', 4],
  ])('%s division holds %i districts', async (division, count) => {
    expect(await districtsOf(division)).toHaveLength(count);
  });

  test('Bangladesh has 64 districts and 495 thanas, all active', async () => {
    const districts = ctx.db('districts as d').join('divisions as v', 'v.id', 'd.division_id').where('v.country_id', bangladesh.id);
    const thanas = ctx
      .db('thanas as t')
      .join('districts as d', 'd.id', 't.district_id')
      .join('divisions as v', 'v.id', 'd.division_id')
      .where('v.country_id', bangladesh.id);
    const count = async (q: typeof districts, alias: string) => {
      const [all] = await q.clone().count({ n: '*' });
      const [active] = await q.clone().where(`${alias}.is_active`, true).count({ n: '*' });
      return [Number(all.n), Number(active.n)];
    };
    expect(await count(districts, 'd')).toEqual([64, 64]);
    expect(await count(thanas, 't')).toEqual([495, 495]);
  });

  test('the district lookups of every division add up to 64', async () => {
    let total = 0;
    for (const division of divisions) total += (await get(`/districts/division/${division.id}`)).total;
    expect(total).toBe(64);
  });

  test('well-known districts sit in their divisions', async () => {
    expect((await districtsOf('Dhaka')).map((d) => d.name)).toEqual(expect.arrayContaining(['Dhaka', 'Gazipur', 'Narayanganj']));
    expect((await districtsOf('Chattogram')).map((d) => d.name)).toEqual(expect.arrayContaining(["Cox's Bazar", 'Chattogram', 'Cumilla']));
    expect((await districtsOf('Rajshahi')).map((d) => d.name)).toEqual(expect.arrayContaining(['Bogura', 'Rajshahi']));
    expect((await districtsOf('Sylhet')).map((d) => d.name)).toEqual(expect.arrayContaining(['Sylhet', 'Moulvibazar']));
    const coxsBazar = byName(await districtsOf('Chattogram'), "Cox's Bazar");
    expect(coxsBazar).toMatchObject({ code: '22', division_name: 'Chattogram', division_id: byName(divisions, 'Chattogram').id });
  });

  test('well-known thanas sit in their districts', async () => {
    const savar = byName(await thanasOf('Dhaka', 'Dhaka'), 'Savar');
    expect(savar).toMatchObject({ code: '2672', district_name: 'Dhaka', is_active: 1 });
    expect((await thanasOf('Sylhet', 'Sylhet')).map((t) => t.name)).toContain('Sylhet Sadar');
    expect((await thanasOf('Chattogram', "Cox's Bazar")).map((t) => t.name)).toEqual(
      expect.arrayContaining(["Cox's Bazar Sadar", 'Teknaf', 'Ukhia']),
    );
    expect((await thanasOf('Dhaka', 'Gazipur')).map((t) => t.name)).toEqual(expect.arrayContaining(['Gazipur Sadar', 'Kaliganj']));
    expect((await thanasOf('Rajshahi', 'Bogura')).map((t) => t.name)).toContain('Bogura Sadar');
  });

  test('a thana name may repeat across districts (Kaliganj)', async () => {
    const rows = await ctx
      .db('thanas as t')
      .join('districts as d', 'd.id', 't.district_id')
      .join('divisions as v', 'v.id', 'd.division_id')
      .where({ 'v.country_id': bangladesh.id, 't.name': 'Kaliganj' })
      .pluck('d.name');
    expect(rows.length).toBeGreaterThanOrEqual(2);
    expect(new Set(rows).size).toBe(rows.length);
  });

  test('a thana can be found by its BBS code', async () => {
    const res = await get('/thanas?search=2672');
    expect(res.thanas.map((t: Place) => t.name)).toContain('Savar');
  });
});

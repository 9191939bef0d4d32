import request from 'supertest';
import { isMysql } from '../helpers/config';
import { bearer } from '../helpers/factory';
import { BASE, create, createChain, setupLocationsContext, softDelete, uniqueName, type Group } from './helpers';

/*
 * Statistics and the schema's cascades share a file on purpose: on MySQL every test file uses
 * one database at once, and the cascade tests physically delete rows. In one file they run one
 * after the other, so no other file ever lowers a total while statistics are being compared
 * (the other files only add rows, or flip is_active on their own rows).
 */
const ctx = setupLocationsContext();
const api = () => request(ctx.app);
const GROUPS: Group[] = ['countries', 'divisions', 'districts', 'thanas'];
const SEEDED = { countries: 1, divisions: 8, districts: 64, thanas: 495 };

type Stats = Record<Group, { total: number; active: number }>;
async function statistics(): Promise<Stats> {
  const res = await api().get(`${BASE}/statistics`).set(bearer(ctx.user));
  expect(res.status).toBe(200);
  return res.body.data.statistics;
}

describe('GET /api/locations/statistics', () => {
  test('gives total and active counts per level to any signed-in user', async () => {
    const res = await api().get(`${BASE}/statistics`).set(bearer(ctx.user));
    expect(res.status).toBe(200);
    expect(res.body.message).toBe('Location statistics retrieved successfully');
    expect(Object.keys(res.body.data)).toEqual(['statistics']);
    const stats: Stats = res.body.data.statistics;
    expect(Object.keys(stats)).toEqual(GROUPS);
    for (const group of GROUPS) {
      expect(Object.keys(stats[group]).sort()).toEqual(['active', 'total']);
      expect(Number.isInteger(stats[group].total)).toBe(true);
      expect(Number.isInteger(stats[group].active)).toBe(true);
      // the seeded rows are never deactivated by any test
      expect(stats[group].active).toBeGreaterThanOrEqual(SEEDED[group]);
      expect(stats[group].total).toBeGreaterThanOrEqual(stats[group].active);
    }
  });

  test('counts the rows of the database', async () => {
    const stats = await statistics();
    for (const group of GROUPS) {
      const [{ total }] = await ctx.db(group).count({ total: '*' });
      const [{ active }] = await ctx.db(group).where({ is_active: true }).count({ active: '*' });
      if (isMysql()) {
        // other files add rows meanwhile: the later count is never smaller
        expect(Number(total)).toBeGreaterThanOrEqual(stats[group].total);
      } else {
        expect(stats[group]).toEqual({ total: Number(total), active: Number(active) });
      }
    }
  });

  test('counts new rows in the total, and inactive ones only there', async () => {
    const before = await statistics();
    const chain = await createChain(ctx, ctx.admin);
    const asleep = await create(ctx, ctx.admin, 'divisions', { country_id: chain.countries.id, name: uniqueName('Asleep') });
    await softDelete(ctx, ctx.admin, 'divisions', asleep.id);
    const after = await statistics();
    const added = { countries: [1, 1], divisions: [2, 1], districts: [1, 1], thanas: [1, 1] };
    for (const group of GROUPS) {
      const [total, active] = added[group];
      if (isMysql()) {
        expect(after[group].total).toBeGreaterThanOrEqual(before[group].total + total);
      } else {
        expect(after[group]).toEqual({ total: before[group].total + total, active: before[group].active + active });
      }
    }
  });

  test('requires a bearer token', async () => {
    expect((await api().get(`${BASE}/statistics`)).status).toBe(401);
  });
});

describe('cascades of spec 2.5 in the schema', () => {
  test('physically deleting a country removes its divisions, districts and thanas', async () => {
    const chain = await createChain(ctx, ctx.admin);
    const secondThana = await create(ctx, ctx.admin, 'thanas', { district_id: chain.districts.id, name: uniqueName('Thana') });
    const survivor = await createChain(ctx, ctx.admin);

    await ctx.db('countries').where({ id: chain.countries.id }).delete();

    expect(await ctx.db('divisions').where({ id: chain.divisions.id }).first('id')).toBeUndefined();
    expect(await ctx.db('districts').where({ id: chain.districts.id }).first('id')).toBeUndefined();
    expect(await ctx.db('thanas').whereIn('id', [chain.thanas.id, secondThana.id]).first('id')).toBeUndefined();
    for (const group of GROUPS) {
      expect(await ctx.db(group).where({ id: survivor[group].id }).first('id')).toEqual({ id: survivor[group].id });
    }
  });

  test("re-keying a division moves its districts' division_id along", async () => {
    const chain = await createChain(ctx, ctx.admin);
    const second = await create(ctx, ctx.admin, 'districts', { division_id: chain.divisions.id, name: uniqueName('District') });
    // a free id that auto-increment will never hand out again: one that was used and removed
    const spare = await create(ctx, ctx.admin, 'divisions', { country_id: chain.countries.id, name: uniqueName('Spare') });
    await ctx.db('divisions').where({ id: spare.id }).delete();

    await ctx.db('divisions').where({ id: chain.divisions.id }).update({ id: spare.id });

    const districts = await ctx.db('districts').whereIn('id', [chain.districts.id, second.id]).orderBy('id').pluck('division_id');
    expect(districts.map(Number)).toEqual([spare.id, spare.id]);
    expect(await ctx.db('districts').where({ division_id: chain.divisions.id }).first('id')).toBeUndefined();
    expect(Number((await ctx.db('thanas').where({ id: chain.thanas.id }).first()).district_id)).toBe(chain.districts.id);

    const lookup = await api().get(`${BASE}/districts/division/${spare.id}`).set(bearer(ctx.user));
    expect(lookup.body.data.districts.map((d: { id: number }) => d.id).sort()).toEqual([chain.districts.id, second.id].sort());
    expect((await api().get(`${BASE}/divisions/${chain.divisions.id}`).set(bearer(ctx.user))).status).toBe(404);
  });
});

import request from 'supertest';
import { bearer, unique } from '../helpers/factory';
import { BASE, create, createParent, CHILD_LEVELS, setupLocationsContext, softDelete, uniqueName, type Group } from './helpers';

const ctx = setupLocationsContext();
const api = () => request(ctx.app);

const list = (group: Group, query: Record<string, string | number | string[]>) =>
  api().get(`${BASE}/${group}`).query(query).set(bearer(ctx.user));
const names = (res: request.Response, group: Group) => res.body.data[group].map((r: { name: string }) => r.name);

describe('paging', () => {
  test('pages the divisions of one country by name, with total and total_pages', async () => {
    const country = await createParent(ctx, ctx.admin, CHILD_LEVELS[0]);
    const stem = uniqueName('Page');
    for (const suffix of ['e', 'c', 'a', 'd', 'b']) {
      await create(ctx, ctx.admin, 'divisions', { country_id: country.id, name: `${stem} ${suffix}` });
    }
    const pages = [];
    for (const page of [1, 2, 3, 4]) {
      const res = await list('divisions', { country_id: country.id, page, limit: 2 });
      expect(res.status).toBe(200);
      expect(res.body.message).toBe('Divisions retrieved successfully');
      expect(res.body.data.pagination).toEqual({ page, limit: 2, total: 5, total_pages: 3, has_more: page < 3 });
      pages.push(names(res, 'divisions'));
    }
    expect(pages).toEqual([[`${stem} a`, `${stem} b`], [`${stem} c`, `${stem} d`], [`${stem} e`], []]);
  });

  test('orders equal names by id', async () => {
    const stem = uniqueName('Twin');
    const ids = [];
    for (let i = 0; i < 3; i += 1) {
      const parent = await createParent(ctx, ctx.admin, CHILD_LEVELS[1]);
      ids.push((await create(ctx, ctx.admin, 'districts', { division_id: parent.id, name: stem })).id);
    }
    const res = await list('districts', { search: stem });
    expect(res.body.data.districts.map((d: { id: number }) => d.id)).toEqual([...ids].sort((a, b) => a - b));
  });

  test('defaults to page 1 and limit 50', async () => {
    const res = await list('thanas', {});
    expect(res.status).toBe(200);
    expect(res.body.data.pagination).toMatchObject({ page: 1, limit: 50 });
    expect(res.body.data.thanas).toHaveLength(50);
    expect(res.body.data.pagination.total).toBeGreaterThanOrEqual(495);
  });

  test('accepts a limit of 500', async () => {
    const res = await list('thanas', { limit: 500 });
    expect(res.status).toBe(200);
    expect(res.body.data.pagination.limit).toBe(500);
    expect(res.body.data.thanas).toHaveLength(Math.min(500, res.body.data.pagination.total));
  });

  test.each([
    ['limit', '0'],
    ['limit', '501'],
    ['limit', 'ten'],
    ['page', '0'],
    ['page', '-2'],
    ['country_id', 'abc'],
    ['include_inactive', 'yes'],
  ])('refuses %s=%s as a validation failure on that field', async (field, value) => {
    const res = await list('divisions', { [field]: value });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ status: 'error', message: 'Validation failed', errors: [{ field, message: expect.any(String) }] });
  });

  test('refuses a repeated search parameter instead of failing', async () => {
    const res = await list('countries', { search: ['a', 'b'] });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ field: 'search', message: expect.any(String) }]);
  });
});

describe('search', () => {
  test('matches name case-insensitively, anywhere in the name', async () => {
    const tag = unique('srch');
    const made = await create(ctx, ctx.admin, 'countries', { name: `Upper ${tag.toUpperCase()} Land` });
    const res = await list('countries', { search: tag.toLowerCase().slice(2) });
    expect(res.body.data.countries.map((c: { id: number }) => c.id)).toEqual([made.id]);
  });

  test('matches the code', async () => {
    const code = unique('Q').slice(0, 20);
    const made = await create(ctx, ctx.admin, 'countries', { name: uniqueName('Coded'), code });
    const res = await list('countries', { search: code.toLowerCase() });
    expect(res.body.data.countries.map((c: { id: number }) => c.id)).toEqual([made.id]);
  });

  test.each(['%', '_', '!'])('takes %s literally', async (char) => {
    const tag = unique('lit');
    const wanted = await create(ctx, ctx.admin, 'countries', { name: `${tag}${char}x` });
    for (const other of ['ax', 'bx', '%x', '_x', '!x'].filter((n) => !n.startsWith(char))) {
      await create(ctx, ctx.admin, 'countries', { name: `${tag}${other}` });
    }
    const res = await list('countries', { search: `${tag}${char}` });
    expect(res.body.data.countries.map((c: { id: number }) => c.id)).toEqual([wanted.id]);
    expect(res.body.data.pagination.total).toBe(1);
  });

  test('combines with the parent filter', async () => {
    const district = await createParent(ctx, ctx.admin, CHILD_LEVELS[2]);
    const other = await createParent(ctx, ctx.admin, CHILD_LEVELS[2]);
    const name = uniqueName('Shared');
    const mine = await create(ctx, ctx.admin, 'thanas', { district_id: district.id, name });
    await create(ctx, ctx.admin, 'thanas', { district_id: other.id, name });
    const res = await list('thanas', { search: name, district_id: district.id });
    expect(res.body.data.thanas.map((t: { id: number }) => t.id)).toEqual([mine.id]);
    expect((await list('thanas', { search: name })).body.data.pagination.total).toBe(2);
  });
});

describe('include_inactive', () => {
  test.each([
    ['true', true],
    ['1', true],
    ['false', false],
    ['0', false],
  ])('include_inactive=%s includes inactive rows: %s', async (value, included) => {
    const country = await createParent(ctx, ctx.admin, CHILD_LEVELS[0]);
    const stem = uniqueName('Flag');
    const active = await create(ctx, ctx.admin, 'divisions', { country_id: country.id, name: `${stem} a on` });
    const inactive = await create(ctx, ctx.admin, 'divisions', { country_id: country.id, name: `${stem} b off` });
    await softDelete(ctx, ctx.admin, 'divisions', inactive.id);
    const res = await list('divisions', { country_id: country.id, include_inactive: value });
    const ids = res.body.data.divisions.map((d: { id: number }) => d.id);
    expect(ids).toEqual(included ? [active.id, inactive.id] : [active.id]);
    expect(res.body.data.pagination.total).toBe(ids.length);
  });

  test('shows only active rows by default', async () => {
    const country = await createParent(ctx, ctx.admin, CHILD_LEVELS[0]);
    const gone = await create(ctx, ctx.admin, 'divisions', { country_id: country.id, name: uniqueName('Gone') });
    await softDelete(ctx, ctx.admin, 'divisions', gone.id);
    const res = await list('divisions', { country_id: country.id });
    expect(res.body.data).toEqual({ divisions: [], pagination: { page: 1, limit: 50, total: 0, total_pages: 0, has_more: false } });
  });
});

import request from 'supertest';
import { setupTestContext } from '../helpers/context';
import { bearer, createUser, unique, type TestUser } from '../helpers/factory';

/**
 * Query booleans (DECISIONS 1) through the one list that takes one today,
 * GET /api/locations/countries?include_inactive=, over a country of this test's own.
 */
const ctx = setupTestContext();
let user: TestUser;
let name: string;

beforeAll(async () => {
  user = await createUser(ctx);
  name = unique('Inactive land ');
  const now = new Date();
  await ctx.db('countries').insert({ name, code: null, is_active: false, created_at: now, updated_at: now });
});

const list = (value: string) =>
  request(ctx.app)
    .get(`/api/locations/countries?search=${encodeURIComponent(name)}&include_inactive=${value}`)
    .set(bearer(user));

describe('query booleans', () => {
  test.each(['true', '1'])('%p is true', async (value) => {
    const res = await list(value);
    expect(res.status).toBe(200);
    expect(res.body.data.countries.map((c: { name: string }) => c.name)).toEqual([name]);
  });

  test.each(['false', '0'])('%p is false', async (value) => {
    const res = await list(value);
    expect(res.status).toBe(200);
    expect(res.body.data.countries).toEqual([]);
  });

  test.each(['yes', 'TRUE ', '2', 'null'])('%p is a validation failure on the parameter', async (value) => {
    const res = await list(value);
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ field: 'include_inactive', message: expect.any(String) }]);
  });

  test('a repeated boolean is a validation failure, not a 500', async () => {
    const res = await request(ctx.app)
      .get(`/api/locations/countries?search=${encodeURIComponent(name)}&include_inactive=true&include_inactive=false`)
      .set(bearer(user));
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ field: 'include_inactive', message: expect.any(String) }]);
  });
});

import request from 'supertest';
import { bearer } from '../helpers/factory';
import { BASE, CHILD_LEVELS, create, createParent, setupLocationsContext, uniqueName, type Group } from './helpers';

const ctx = setupLocationsContext();
const api = () => request(ctx.app);

const GROUPS: Array<{ group: Group; parentKey: string | null }> = [
  { group: 'countries', parentKey: null },
  ...CHILD_LEVELS.map((l) => ({ group: l.group, parentKey: l.parentKey })),
];

describe.each(GROUPS)('input validation of $group', ({ group, parentKey }) => {
  const path = `${BASE}/${group}`;
  /** the parent field of a valid body: a live parent of the file's own */
  let parent: Record<string, number> = {};
  beforeAll(async () => {
    const level = CHILD_LEVELS.find((l) => l.group === group);
    if (level && parentKey) parent = { [parentKey]: (await createParent(ctx, ctx.admin, level)).id };
  });
  const post = (body: Record<string, unknown>) => api().post(path).set(bearer(ctx.admin)).send(body);
  const fieldsOf = (res: request.Response) => res.body.errors.map((e: { field: string }) => e.field).sort();

  test('lists every failing field of a create', async () => {
    const res = await post({ code: 'x'.repeat(21) });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('Validation failed');
    expect(fieldsOf(res)).toEqual(['code', 'name', ...(parentKey ? [parentKey] : [])].sort());
  });

  test.each([
    ['missing', {}],
    ['blank', { name: '   ' }],
    ['longer than 100 characters', { name: 'n'.repeat(101) }],
    ['a number', { name: 42 }],
    ['an object', { name: { a: 1 } }],
    ['null', { name: null }],
  ])('refuses a name that is %s', async (_what, body) => {
    const res = await post({ ...parent, ...body });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ status: 'error', message: 'Validation failed', errors: [{ field: 'name', message: expect.any(String) }] });
  });

  test('accepts a name of exactly 100 characters, trimmed, and a code of 20', async () => {
    const name = `${uniqueName('Long')}${'n'.repeat(100)}`.slice(0, 100);
    const res = await post({ ...parent, name: `  ${name} `, code: 'c'.repeat(20) });
    expect(res.status).toBe(201);
    expect(res.body.data[Object.keys(res.body.data)[0]]).toMatchObject({ name, code: 'c'.repeat(20) });
  });

  test.each([['too long', 'c'.repeat(21)], ['a number', 12], ['an array', ['BD']]])(
    'refuses a code that is %s',
    async (_what, code) => {
      const res = await post({ ...parent, name: uniqueName('Coded'), code });
      expect(res.status).toBe(400);
      expect(res.body.errors).toEqual([{ field: 'code', message: expect.any(String) }]);
    },
  );

  test.each(['abc', '0', '-1', '1.5', '99999999999999999999'])('refuses the path id %s as a failure on id', async (id) => {
    const responses = await Promise.all([
      api().get(`${path}/${id}`).set(bearer(ctx.user)),
      api().put(`${path}/${id}`).set(bearer(ctx.admin)).send({ name: uniqueName('X') }),
      api().delete(`${path}/${id}`).set(bearer(ctx.admin)),
    ]);
    for (const res of responses) {
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ status: 'error', message: 'Validation failed', errors: [{ field: 'id', message: 'id must be a positive integer' }] });
    }
  });

  test('lists every failing field of an update and changes nothing', async () => {
    const created = await create(ctx, ctx.admin, group, { ...parent, name: uniqueName('Fixed') });
    const res = await api()
      .put(`${path}/${created.id}`)
      .set(bearer(ctx.admin))
      .send({ name: '', code: 'x'.repeat(21), is_active: 'maybe', ...(parentKey ? { [parentKey]: 'x' } : {}) });
    expect(res.status).toBe(400);
    expect(fieldsOf(res)).toEqual(['code', 'is_active', 'name', ...(parentKey ? [parentKey] : [])].sort());
    expect((await ctx.db(group).where({ id: created.id }).first()).name).toBe(created.name);
  });

  test('a User is refused with 403 before the body is even checked', async () => {
    const res = await api().post(path).set(bearer(ctx.user)).send({ name: 42 });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ status: 'error', message: 'Insufficient permissions' });
  });

  test('one name created by several admins at once: one 201, the others 409', async () => {
    const name = uniqueName('Race');
    const results = await Promise.all(
      [ctx.admin, ctx.superAdmin, ctx.admin, ctx.superAdmin].map((who) => api().post(path).set(bearer(who)).send({ ...parent, name })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409, 409]);
    const duplicate = results.find((r) => r.status === 409)!;
    expect(duplicate.body.message).toMatch(/^A (country|division|district|thana) with this name already exists/);
    expect(await ctx.db(group).where({ name }).count({ n: '*' })).toEqual([{ n: 1 }]);
  });
});

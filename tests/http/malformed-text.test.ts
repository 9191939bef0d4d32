import request from 'supertest';
import { setupTestContext } from '../helpers/context';
import { anyDesignationId, bearer, createUnit, createUser, unique, type TestUser } from '../helpers/factory';

/**
 * Text that cannot be decoded or stored as given is a 400 on its field, never a 500 and never
 * stored altered: a path parameter with a bad percent-escape, and a JSON string holding a lone
 * UTF-16 surrogate (JSON can spell one, `"\ud800"`; UTF-8 in paths and query strings cannot).
 */
const ctx = setupTestContext();
let admin: TestUser;
const LONE = '\ud800';

beforeAll(async () => {
  admin = await createUser(ctx, { role: 'Super_admin' });
});

function expectField(res: request.Response, field: string): void {
  expect(res.status).toBe(400);
  expect(res.body.status).toBe('error');
  expect(res.body.message).toBe('Validation failed');
  expect(res.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ field })]));
}

describe('a path parameter that is not valid percent-encoded UTF-8', () => {
  test.each([
    '/api/contacts/%ff',
    '/api/contacts/%ff/children',
    '/api/contacts/unit/%E0%A4%A',
    '/api/locations/countries/%ff',
    '/api/units/%C3',
    '/api/roles/%ED%A0%80',
  ])('%s answers 400 Validation failed on the path', async (path) => {
    expectField(await request(ctx.app).get(path).set(bearer(admin)), 'path');
  });

  test('a well-formed escape still reaches the route (%31 is the id 1)', async () => {
    const res = await request(ctx.app).get('/api/units/%31').set(bearer(admin));
    expect([200, 404]).toContain(res.status);
    const garbled = await request(ctx.app).get('/api/units/%41').set(bearer(admin));
    expectField(garbled, 'id');
  });
});

describe('a JSON string holding a lone surrogate', () => {
  test('sign-in answers 400 on email (isEmail threw a 500 on it) and writes no failed sign-in', async () => {
    // this request's own rows, by a user agent of its own: on MySQL the test files share one
    // database, and another file's failed sign-ins land beside these (a CI run counted 3 more)
    const agent = `malformed-${unique()}`;
    const res = await request(ctx.app).post('/api/auth/login').set('User-Agent', agent).send({ email: `${LONE}x@example.test`, password: 'x' });
    expectField(res, 'email');
    const rowsOfAgent = async () => Number((await ctx.db('failed_login_attempts').where({ user_agent: agent }).count({ n: '*' }).first())!.n);
    expect(await rowsOfAgent()).toBe(0);
    // the count sees this agent's rows: a well-formed failed sign-in by it is one
    await request(ctx.app).post('/api/auth/login').set('User-Agent', agent).send({ email: `${unique('nobody')}@example.test`, password: 'x' }).expect(401);
    expect(await rowsOfAgent()).toBe(1);
  });

  test('contact create answers 400 on the field and stores nothing', async () => {
    const unit = await createUnit(ctx);
    const serviceNo = unique('SURR');
    const res = await request(ctx.app)
      .post('/api/contacts')
      .set(bearer(admin))
      .send({
        name: `Name ${LONE}`,
        service_no: serviceNo,
        unit_id: unit.id,
        designation_id: await anyDesignationId(ctx),
        phone: '0100',
        email: `${serviceNo.toLowerCase()}@example.test`,
      });
    expectField(res, 'name');
    expect(await ctx.db('users').where({ service_no: serviceNo }).first('id')).toBeUndefined();
  });

  test('profile update answers 400 on the field and changes nothing', async () => {
    const user = await createUser(ctx);
    const res = await request(ctx.app).put('/api/auth/profile').set(bearer(user)).send({ name: `A${LONE}B` });
    expectField(res, 'name');
    expect((await ctx.db('users').where({ id: user.id }).first('name')).name).toBe(user.name);
  });

  test('register answers 400 on the field and stores nothing', async () => {
    const { name: designation } = await ctx.db('designations').orderBy('id').first('name');
    const serviceNo = unique('R');
    const body = { name: 'Some One', email: `${unique('reg')}@example.test`, password: 'Passw0rd!', service_no: serviceNo, unit: 'HQ', designation };
    const res = await request(ctx.app).post('/api/auth/register').set(bearer(admin)).send({ ...body, branch: `North ${LONE}` });
    expectField(res, 'branch');
    expect(await ctx.db('users').where({ service_no: serviceNo }).first('id')).toBeUndefined();
    // the same body with well-formed text registers: the refusal was the surrogate's
    expect((await request(ctx.app).post('/api/auth/register').set(bearer(admin)).send({ ...body, branch: 'North' })).status).toBe(201);
  });

  test('names every bad field, nested ones by their path', async () => {
    const res = await request(ctx.app)
      .post('/api/roles')
      .set(bearer(admin))
      .send({ name: `R${LONE}`, description: 'fine', permissions: ['contacts.read', `x${LONE}`] });
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: { field: string }) => e.field)).toEqual(['name', 'permissions[1]']);
  });

  test('well-formed text beyond the basic plane (an emoji, Bengali) is accepted as given', async () => {
    const user = await createUser(ctx);
    const name = 'রহিম 😀 Uddin';
    const res = await request(ctx.app).put('/api/auth/profile').set(bearer(user)).send({ name });
    expect(res.status).toBe(200);
    expect(res.body.data.user.name).toBe(name);
  });
});

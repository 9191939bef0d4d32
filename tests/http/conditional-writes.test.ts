import request from 'supertest';
import { setupOwnTestContext } from '../helpers/context';
import { bearer, createUnit, createUser, unique, type TestUser } from '../helpers/factory';

/**
 * Every write of a resource whose GET answers an ETag honours If-Match and If-None-Match
 * (RFC 9110, 13.1.1 and 13.1.2; issue #22, item 7; docs/api.md, Conditional requests): a
 * precondition that does not hold answers 412 and changes nothing. A contact's tag names its
 * row; a reference record's or a location's names the version of all of its kind.
 * A database of its own: another file's writes would bump the versions these tests hold.
 */

const ctx = setupOwnTestContext('cond_writes');
const api = () => request(ctx.app);
let admin: TestUser;
let unitId: number;
let designationId: number;

beforeAll(async () => {
  unitId = (await createUnit(ctx)).id;
  admin = await createUser(ctx, { role: 'Super_admin', unit_id: unitId });
  designationId = Number((await ctx.db('designations').orderBy('id').first('id')).id);
});

type Headers = Record<string, string>;
const withHeaders = (req: request.Test, headers: Headers) => Object.entries(headers).reduce((r, [k, v]) => r.set(k, v), req);
const put = (path: string, body: object, headers: Headers = {}) => withHeaders(api().put(path).set(bearer(admin)), headers).send(body);
const del = (path: string, headers: Headers = {}) => withHeaders(api().delete(path).set(bearer(admin)), headers);
const get = (path: string) => api().get(path).set(bearer(admin));

async function etagOf(path: string): Promise<string> {
  const res = await get(path);
  expect(res.status).toBe(200);
  expect(res.headers.etag).toMatch(/^"[^"]+"$/);
  return res.headers.etag as string;
}

function expect412(res: request.Response, message: string): void {
  expect({ status: res.status, body: res.body }).toEqual({ status: 412, body: { status: 'error', message } });
  expect(res.headers.etag).toBeUndefined();
}

describe('contacts: DELETE /:id, PUT /:id/password and PUT /:id', () => {
  const stale = 'Contact was changed by someone else';
  let serial = 0;
  async function createContact(): Promise<number> {
    serial += 1;
    const res = await api()
      .post('/api/contacts')
      .set(bearer(admin))
      .send({ name: `Cond write ${serial}`, service_no: unique('CW'), unit_id: unitId, designation_id: designationId, phone: '0171', email: `${unique('cw')}@example.test` });
    expect(res.status).toBe(201);
    return res.body.data.contact.id;
  }
  const path = (id: number) => `/api/contacts/${id}`;
  const row = (id: number) => ctx.db('users').where({ id }).first('is_active', 'password_hash', 'phone');
  const isActive = async (id: number) => Boolean(Number((await row(id)).is_active));
  const reset = (id: number, headers: Headers) => put(`${path(id)}/password`, { newPassword: 'N3w-Passw0rd!' }, headers);

  test('DELETE: a garbage If-Match, a stale ETag and If-None-Match: * are 412 and the contact stays; its current ETag deletes it', async () => {
    const id = await createContact();
    const before = await etagOf(path(id));
    expect412(await del(path(id), { 'If-Match': '"garbage"' }), stale);
    expect412(await del(path(id), { 'If-None-Match': '*' }), stale);
    expect412(await del(path(id), { 'If-None-Match': before }), stale);
    expect(await isActive(id)).toBe(true);
    expect((await put(path(id), { phone: '0172' })).status).toBe(200);
    expect412(await del(path(id), { 'If-Match': before }), stale);
    expect(await isActive(id)).toBe(true);
    expect((await del(path(id), { 'If-Match': await etagOf(path(id)) })).status).toBe(200);
    expect(await isActive(id)).toBe(false);
  });

  test('PUT /:id/password: a garbage If-Match, a stale ETag and If-None-Match: * are 412 and the password stays; its current ETag resets it', async () => {
    const id = await createContact();
    const { password_hash: hash } = await row(id);
    const before = await etagOf(path(id));
    expect412(await reset(id, { 'If-Match': '"garbage"' }), stale);
    expect412(await reset(id, { 'If-None-Match': '*' }), stale);
    expect((await put(path(id), { phone: '0173' })).status).toBe(200);
    expect412(await reset(id, { 'If-Match': before }), stale);
    expect((await row(id)).password_hash).toBe(hash);
    expect((await reset(id, { 'If-Match': await etagOf(path(id)) })).status).toBe(200);
    expect((await row(id)).password_hash).not.toBe(hash);
    // the reset changed the contact: the ETag read before it is stale
    expect412(await reset(id, { 'If-Match': before }), stale);
  });

  test('PUT /:id: If-None-Match: * or the current ETag is 412 and nothing changes; a stale one does not hold the change back', async () => {
    const id = await createContact();
    const before = await etagOf(path(id));
    expect412(await put(path(id), { phone: '0174' }, { 'If-None-Match': '*' }), stale);
    expect412(await put(path(id), { phone: '0174' }, { 'If-None-Match': `W/${before}` }), stale);
    expect((await row(id)).phone).toBe('0171');
    expect((await put(path(id), { phone: '0175' }, { 'If-None-Match': '"garbage"' })).status).toBe(200);
    expect((await put(path(id), { phone: '0176' }, { 'If-None-Match': before })).status).toBe(200);
    expect((await row(id)).phone).toBe('0176');
  });

  test('404 comes before 412', async () => {
    expect((await del(path(2_000_000_000), { 'If-Match': '"garbage"' })).status).toBe(404);
    expect((await reset(2_000_000_000, { 'If-None-Match': '*' })).status).toBe(404);
  });
});

interface Resource {
  plural: string;
  singular: string;
  label: string;
  base: string;
  message: string;
  create: () => object;
}

const REFERENCE = 'Reference data was changed by someone else';
const LOCATIONS = 'Locations were changed by someone else';
const reference = (plural: string, singular: string, label: string, create: () => object): Resource => ({
  plural, singular, label, base: `/api/${plural}`, message: REFERENCE, create,
});

let countryId: number;
let divisionId: number;
let districtId: number;
const location = (plural: string, singular: string, label: string, create: () => object): Resource => ({
  plural, singular, label, base: `/api/locations/${plural}`, message: LOCATIONS, create,
});

beforeAll(async () => {
  const made = async (path: string, body: object, key: string) => {
    const res = await api().post(path).set(bearer(admin)).send(body);
    expect(res.status).toBe(201);
    return Number(res.body.data[key].id);
  };
  countryId = await made('/api/locations/countries', { name: unique('Country ') }, 'country');
  divisionId = await made('/api/locations/divisions', { country_id: countryId, name: unique('Division ') }, 'division');
  districtId = await made('/api/locations/districts', { division_id: divisionId, name: unique('District ') }, 'district');
});

const RESOURCES: Resource[] = [
  reference('units', 'unit', 'Unit', () => ({ name: unique('Unit ') })),
  reference('departments', 'department', 'Department', () => ({ name: unique('Dept '), unit_id: unitId })),
  reference('designations', 'designation', 'Designation', () => ({ name: unique('Desig ') })),
  reference('ranks', 'rank', 'Rank', () => ({ name: unique('Rank '), level: 7 })),
  reference('organizations', 'organization', 'Organization', () => ({ name: unique('Org ') })),
  reference('roles', 'role', 'Role', () => ({ name: unique('Role ').slice(0, 50), permissions: [] })),
  location('countries', 'country', 'Country', () => ({ name: unique('Country ') })),
  location('divisions', 'division', 'Division', () => ({ country_id: countryId, name: unique('Division ') })),
  location('districts', 'district', 'District', () => ({ division_id: divisionId, name: unique('District ') })),
  location('thanas', 'thana', 'Thana', () => ({ district_id: districtId, name: unique('Thana ') })),
];

describe.each(RESOURCES)('PUT and DELETE $base/:id', (r) => {
  const item = (id: number) => `${r.base}/${id}`;
  const rename = () => ({ name: unique(`${r.label} `).slice(0, 50) });
  async function createOne(): Promise<{ id: number; name: string }> {
    const res = await api().post(r.base).set(bearer(admin)).send(r.create());
    expect(res.status).toBe(201);
    return res.body.data[r.singular];
  }
  /** The record as stored: its name, and whether it is there and active (locations delete softly). */
  async function stored(id: number) {
    const res = await get(item(id));
    if (res.status === 404) return null;
    expect(res.status).toBe(200);
    const record = res.body.data[r.singular];
    return { name: record.name, active: record.is_active ?? 1 };
  }

  test('a garbage If-Match is 412 and changes nothing', async () => {
    const { id, name } = await createOne();
    expect412(await put(item(id), rename(), { 'If-Match': '"garbage"' }), r.message);
    expect412(await put(item(id), rename(), { 'If-Match': 'garbage' }), r.message);
    expect412(await del(item(id), { 'If-Match': '"garbage"' }), r.message);
    expect(await stored(id)).toEqual({ name, active: 1 });
  });

  test('If-None-Match: * (or the current ETag) is 412 and changes nothing', async () => {
    const { id, name } = await createOne();
    expect412(await put(item(id), rename(), { 'If-None-Match': '*' }), r.message);
    expect412(await del(item(id), { 'If-None-Match': '*' }), r.message);
    expect412(await put(item(id), rename(), { 'If-None-Match': await etagOf(item(id)) }), r.message);
    expect(await stored(id)).toEqual({ name, active: 1 });
  });

  test('the current ETag of GET /:id lets the change through; after it, that ETag is stale (412)', async () => {
    const { id } = await createOne();
    const before = await etagOf(item(id));
    const first = rename();
    expect((await put(item(id), first, { 'If-Match': before })).status).toBe(200);
    expect412(await put(item(id), rename(), { 'If-Match': before }), r.message);
    expect412(await del(item(id), { 'If-Match': before }), r.message);
    expect(await stored(id)).toEqual({ name: first.name, active: 1 });
    // `*` holds for any record there is; a list holds when one of its tags does
    expect((await put(item(id), rename(), { 'If-Match': '*' })).status).toBe(200);
    expect((await del(item(id), { 'If-Match': `"x", ${await etagOf(item(id))}` })).status).toBe(200);
    expect((await stored(id))?.active ?? 0).toBe(0);
  });

  test('a weak tag, the list\'s ETag or another record\'s does not hold', async () => {
    const { id, name } = await createOne();
    const other = await createOne();
    const tag = await etagOf(item(id));
    expect412(await put(item(id), rename(), { 'If-Match': `W/${tag}` }), r.message);
    expect412(await put(item(id), rename(), { 'If-Match': await etagOf(r.base) }), r.message);
    expect412(await put(item(id), rename(), { 'If-Match': await etagOf(item(other.id)) }), r.message);
    expect(await stored(id)).toEqual({ name, active: 1 });
  });

  test('the tag names a version of all records of its kind: a change of another one makes it stale', async () => {
    const { id, name } = await createOne();
    const tag = await etagOf(item(id));
    await createOne();
    expect412(await put(item(id), rename(), { 'If-Match': tag }), r.message);
    expect(await stored(id)).toEqual({ name, active: 1 });
  });

  test('two writes at once, each holding the ETag of the same version: one is made, the other is 412', async () => {
    const [a, b] = [await createOne(), await createOne()];
    const [tagA, tagB] = [await etagOf(item(a.id)), await etagOf(item(b.id))];
    const answers = await Promise.all([put(item(a.id), rename(), { 'If-Match': tagA }), put(item(b.id), rename(), { 'If-Match': tagB })]);
    expect(answers.map((res) => res.status).sort()).toEqual([200, 412]);
  });

  test('404 comes before 412', async () => {
    expect((await put(item(2_000_000_000), rename(), { 'If-Match': '"garbage"' })).status).toBe(404);
    expect((await del(item(2_000_000_000), { 'If-None-Match': '*' })).status).toBe(404);
  });
});

import request from 'supertest';
import { setupOwnTestContext } from '../helpers/context';
import { bearer, createUnit, createUser, PASSWORD, type TestUser } from '../helpers/factory';

/**
 * Conditional requests (issue #13, item 2; docs/api.md, Conditional requests): every read of
 * the directory, the locations and the reference data answers an ETag built from versions,
 * a matching If-None-Match answers 304 without reading the data, and PUT /:id and
 * /:id/move take an If-Match and answer 412 when the contact changed since it was read.
 * A database of its own: another file's writes would bump the versions these tests compare.
 */

const ctx = setupOwnTestContext('conditional');
const api = () => request(ctx.app);
let admin: TestUser;
let otherAdmin: TestUser;
let reader: TestUser;
let unitId: number;
let designationId: number;

beforeAll(async () => {
  unitId = (await createUnit(ctx)).id;
  admin = await createUser(ctx, { role: 'Super_admin', unit_id: unitId });
  otherAdmin = await createUser(ctx, { role: 'Super_admin', unit_id: unitId });
  reader = await createUser(ctx, { unit_id: unitId });
  designationId = Number((await ctx.db('designations').orderBy('id').first('id')).id);
});

let serial = 0;
async function createContact(extra: Record<string, unknown> = {}): Promise<number> {
  serial += 1;
  const res = await api()
    .post('/api/contacts')
    .set(bearer(admin))
    .send({ name: `Conditional ${serial}`, service_no: `COND-${serial}`, unit_id: unitId, designation_id: designationId, phone: '0171', email: `cond${serial}@example.test`, ...extra });
  expect(res.status).toBe(201);
  return res.body.data.contact.id;
}

const read = (path: string, caller: TestUser = reader, ifNoneMatch?: string) => {
  const req = api().get(path).set(bearer(caller));
  return ifNoneMatch === undefined ? req : req.set('If-None-Match', ifNoneMatch);
};

async function etagOf(path: string, caller: TestUser = reader): Promise<string> {
  const res = await read(path, caller);
  expect(res.status).toBe(200);
  expect(res.headers.etag).toMatch(/^"[^"]+"$/);
  return res.headers.etag as string;
}

/** Expects the read to answer 304 with no body to its own ETag, and returns that ETag. */
async function expectNotModified(path: string, caller: TestUser = reader): Promise<string> {
  const tag = await etagOf(path, caller);
  const again = await read(path, caller, tag);
  expect(again.status).toBe(304);
  expect(again.text ?? '').toBe('');
  expect(again.headers.etag).toBe(tag);
  return tag;
}

/** Expects a 200 with a new ETag for a tag taken before a change. */
async function expectChanged(path: string, before: string, caller: TestUser = reader): Promise<void> {
  const res = await read(path, caller, before);
  expect(res.status).toBe(200);
  expect(res.headers.etag).not.toBe(before);
}

describe('reads answer an ETag and 304 to a matching If-None-Match', () => {
  const paths = () => [
    `/api/contacts`,
    `/api/contacts?format=flat&page=1&limit=5`,
    `/api/contacts?format=hierarchical`,
    `/api/contacts?search=Conditional`,
    `/api/contacts/search?q=Conditional`,
    `/api/contacts/statistics`,
    `/api/contacts/organizational-hierarchy`,
    `/api/contacts/unit/${unitId}`,
    `/api/contacts/${admin.id}`,
    `/api/contacts/${admin.id}/children`,
    `/api/locations/divisions`,
    `/api/locations/statistics`,
    `/api/locations/districts/division/1`,
    `/api/units`,
    `/api/designations/${designationId}`,
    `/api/roles`,
    `/api/roles/1`,
  ];

  test('every read of the directory, the locations and the reference data', async () => {
    await createContact();
    for (const path of paths()) {
      const tag = await expectNotModified(path);
      // weak comparison: W/ is ignored; a list of tags matches when one does; * matches any
      expect((await read(path, reader, `W/${tag}`)).status).toBe(304);
      expect((await read(path, reader, `"nope", ${tag}`)).status).toBe(304);
      expect((await read(path, reader, '*')).status).toBe(304);
      expect((await read(path, reader, '"nope"')).status).toBe(200);
    }
  });

  test('the ETag names the request: another query or another path does not match it', async () => {
    const page1 = await etagOf('/api/contacts?page=1&limit=1');
    expect(await etagOf('/api/contacts?page=2&limit=1')).not.toBe(page1);
    expect((await read('/api/contacts?page=2&limit=1', reader, page1)).status).toBe(200);
    expect((await read('/api/contacts/statistics', reader, page1)).status).toBe(200);
  });

  test('the ETag names the caller\'s role: a User\'s tag is not a Super_admin\'s', async () => {
    const asUser = await etagOf('/api/contacts');
    const asAdmin = await etagOf('/api/contacts', admin);
    expect(asAdmin).not.toBe(asUser);
    expect((await read('/api/contacts', admin, asUser)).status).toBe(200);
  });

  test('a refused read carries no ETag (the tag is set before validation and before the read), and no tag of it can match', async () => {
    const refused = [
      ['/api/contacts?limit=0', 400],
      ['/api/contacts/unit/0', 400],
      ['/api/contacts/2000000000', 404],
      ['/api/contacts/unit/2000000000', 404],
      ['/api/locations/divisions/2000000000', 404],
      ['/api/designations/abc', 400],
    ] as const;
    for (const [path, status] of refused) {
      const res = await read(path);
      expect([path, res.status]).toEqual([path, status]);
      expect([path, res.headers.etag]).toEqual([path, undefined]);
      expect(res.body.status).toBe('error');
    }
    // a valid read's tag does not hold for the refused URL next to it: validation answers
    const tag = await etagOf('/api/contacts?limit=1');
    const res = await read('/api/contacts?limit=0', reader, tag);
    expect(res.status).toBe(400);
    expect(res.headers.etag).toBeUndefined();
    // `*` names no URL: it matches before validation (docs/api.md, Conditional requests)
    expect((await read('/api/contacts?limit=0', reader, '*')).status).toBe(304);
  });

  test('a 304 reads no contact: the read does not run', async () => {
    const path = `/api/contacts/unit/${unitId}`;
    const tag = await etagOf(path);
    const queries: string[] = [];
    const listen = (q: { sql: string }) => queries.push(q.sql);
    ctx.db.on('query', listen);
    try {
      // a 200 runs the read's queries through knex (the unit, its names, its rows)...
      expect((await read(`${path}?format=flat&include_inactive=true`, reader, tag)).status).toBe(200);
      expect(queries.length).toBeGreaterThan(0);
      queries.length = 0;
      // ...a 304 none: the session and the versions are prepared statements, nothing else runs
      expect((await read(path, reader, tag)).status).toBe(304);
      expect(queries).toEqual([]);
    } finally {
      ctx.db.off('query', listen);
    }
  });
});

describe('a change makes the reads it shows in answer 200 with a new ETag', () => {
  const directoryReads = () => ['/api/contacts', `/api/contacts/unit/${unitId}`, '/api/contacts/statistics', `/api/contacts/${reader.id}`];

  async function tagsOf(paths: string[]): Promise<string[]> {
    return Promise.all(paths.map((p) => expectNotModified(p)));
  }
  async function expectAllChanged(paths: string[], before: string[]): Promise<void> {
    for (const [i, path] of paths.entries()) await expectChanged(path, before[i]);
  }

  test('a contact created, updated, moved or deleted', async () => {
    let before = await tagsOf(directoryReads());
    const id = await createContact();
    await expectAllChanged(directoryReads(), before);

    before = await tagsOf(directoryReads());
    expect((await api().put(`/api/contacts/${id}`).set(bearer(admin)).send({ phone: '0999' })).status).toBe(200);
    await expectAllChanged(directoryReads(), before);

    before = await tagsOf(directoryReads());
    expect((await api().put(`/api/contacts/${id}/move`).set(bearer(admin)).send({ parent_id: reader.id })).status).toBe(200);
    await expectAllChanged(directoryReads(), before);

    before = await tagsOf(directoryReads());
    expect((await api().delete(`/api/contacts/${id}`).set(bearer(admin))).status).toBe(200);
    await expectAllChanged(directoryReads(), before);
  });

  test('a sign-in (status and last_seen change) and a password change', async () => {
    let before = await tagsOf(directoryReads());
    const login = await api().post('/api/auth/login').send({ email: reader.email, password: PASSWORD });
    expect(login.status).toBe(200);
    await expectAllChanged(directoryReads(), before);

    const token = login.body.data.token as string;
    const signedIn = { ...reader, token };
    before = await Promise.all(directoryReads().map((p) => etagOf(p, signedIn)));
    const changed = await api()
      .put('/api/auth/change-password')
      .set({ Authorization: `Bearer ${token}` })
      .send({ currentPassword: PASSWORD, newPassword: 'N3w-Passw0rd!' });
    expect(changed.status).toBe(200);
    // the reader's token is revoked by the change: read as the administrator
    for (const [i, path] of directoryReads().entries()) {
      const res = await read(path, admin, before[i]);
      expect(res.status).toBe(200);
    }
    const relogin = await api().post('/api/auth/login').send({ email: reader.email, password: 'N3w-Passw0rd!' });
    reader = { ...reader, token: relogin.body.data.token, password: 'N3w-Passw0rd!' };
  });

  test('a name a contact shows (a designation) and a role\'s permissions; the locations stay as they were', async () => {
    const before = await tagsOf(directoryReads());
    const roles = await expectNotModified('/api/roles');
    const divisions = await expectNotModified('/api/locations/divisions');
    const renamed = await api().put(`/api/designations/${designationId}`).set(bearer(admin)).send({ name: `Designation ${Date.now()}` });
    expect(renamed.status).toBe(200);
    await expectAllChanged(directoryReads(), before);
    await expectChanged('/api/roles', roles);
    expect((await read('/api/locations/divisions', reader, divisions)).status).toBe(304);
  });

  test('a location change changes the locations\' ETags and no contact read\'s', async () => {
    const before = await tagsOf(directoryReads());
    const divisions = await expectNotModified('/api/locations/divisions');
    const stats = await expectNotModified('/api/locations/statistics');
    const changed = await api().put('/api/locations/divisions/1').set(bearer(admin)).send({});
    expect(changed.status).toBe(200);
    await expectChanged('/api/locations/divisions', divisions);
    await expectChanged('/api/locations/statistics', stats);
    for (const [i, path] of directoryReads().entries()) expect((await read(path, reader, before[i])).status).toBe(304);
  });

  test('the unit tree, kept between requests, shows a change at once', async () => {
    const id = await createContact();
    const path = `/api/contacts/unit/${unitId}?format=flat`;
    const names = async () => ((await read(path)).body.data.contacts as Array<{ id: number; name: string }>).find((c) => c.id === id)?.name;
    expect(await names()).toMatch(/^Conditional/);
    expect((await api().put(`/api/contacts/${id}`).set(bearer(admin)).send({ name: 'Renamed Since' })).status).toBe(200);
    expect(await names()).toBe('Renamed Since');
  });
});

test('the kept unit tree goes gzipped to a client that accepts gzip, and as it is to one that does not', async () => {
  const path = `/api/contacts/unit/${unitId}`;
  const plain = await read(path).set('Accept-Encoding', 'identity');
  expect(plain.status).toBe(200);
  expect(plain.headers['content-encoding']).toBeUndefined();
  expect(plain.headers.vary).toMatch(/Accept-Encoding/i);
  expect(plain.body.data.contacts.length).toBeGreaterThan(0);
  // the first compresses the kept tree, the second is sent the same bytes
  for (const round of [1, 2]) {
    const zipped = await read(path).set('Accept-Encoding', 'gzip, deflate');
    expect([round, zipped.status, zipped.headers['content-encoding']]).toEqual([round, 200, 'gzip']);
    // supertest undoes the gzip: the same answer, in fewer bytes
    expect(zipped.body).toEqual(plain.body);
    expect(Number(zipped.headers['content-length'])).toBeLessThan(Number(plain.headers['content-length']));
  }
});

describe('PUT /api/contacts/:id and /:id/move with If-Match', () => {
  const update = (id: number, body: object, ifMatch?: string, caller: TestUser = admin) => {
    const req = api().put(`/api/contacts/${id}`).set(bearer(caller));
    return (ifMatch === undefined ? req : req.set('If-Match', ifMatch)).send(body);
  };
  const move = (id: number, parentId: number | null, ifMatch?: string, caller: TestUser = admin) => {
    const req = api().put(`/api/contacts/${id}/move`).set(bearer(caller));
    return (ifMatch === undefined ? req : req.set('If-Match', ifMatch)).send({ parent_id: parentId });
  };
  const stale = { status: 'error', message: 'Contact was changed by someone else' };
  const contactOf = async (id: number) => (await read(`/api/contacts/${id}`, admin)).body.data.contact;

  test('two administrators editing one contact: the second, holding a stale ETag, gets 412 and overwrites nothing', async () => {
    const id = await createContact();
    const seenByA = await etagOf(`/api/contacts/${id}`, admin);
    const seenByB = await etagOf(`/api/contacts/${id}`, otherAdmin);
    const a = await update(id, { phone: '0111' }, seenByA);
    expect(a.status).toBe(200);
    const b = await update(id, { phone: '0222' }, seenByB, otherAdmin);
    expect(b.status).toBe(412);
    expect(b.body).toEqual(stale);
    expect((await contactOf(id)).phone).toBe('0111');
    // B reads again and may change it
    const fresh = await etagOf(`/api/contacts/${id}`, otherAdmin);
    expect((await update(id, { phone: '0222' }, fresh, otherAdmin)).status).toBe(200);
  });

  test('back-to-back changes each make the last ETag stale (updated_at only grows)', async () => {
    const id = await createContact();
    let tag = await etagOf(`/api/contacts/${id}`, admin);
    let last = Date.parse((await contactOf(id)).updated_at);
    for (const phone of ['01', '02', '03']) {
      const res = await update(id, { phone }, tag);
      expect(res.status).toBe(200);
      const at = Date.parse(res.body.data.contact.updated_at);
      expect(at).toBeGreaterThan(last);
      last = at;
      expect((await update(id, { phone: 'x' }, tag)).status).toBe(412);
      tag = await etagOf(`/api/contacts/${id}`, admin);
    }
  });

  test('a move with a stale ETag is 412 and leaves the contact where it was; with a fresh one it moves', async () => {
    const parent = await createContact();
    const id = await createContact();
    const tag = await etagOf(`/api/contacts/${id}`, admin);
    expect((await update(id, { phone: '0333' })).status).toBe(200);
    const refused = await move(id, parent, tag);
    expect(refused.status).toBe(412);
    expect(refused.body).toEqual(stale);
    expect((await contactOf(id)).parent_id).toBeNull();
    const moved = await move(id, parent, await etagOf(`/api/contacts/${id}`, admin));
    expect(moved.status).toBe(200);
    expect((await contactOf(id)).parent_id).toBe(parent);
  });

  test('a change of another contact leaves the ETag good; a bulk move or a deleted parent makes it stale', async () => {
    const parent = await createContact();
    const id = await createContact({ parent_id: parent });
    const other = await createContact();
    let tag = await etagOf(`/api/contacts/${id}`, admin);
    expect((await update(other, { phone: '0444' })).status).toBe(200);
    expect((await update(id, { phone: '0555' }, tag)).status).toBe(200);

    tag = await etagOf(`/api/contacts/${id}`, admin);
    expect((await api().post('/api/contacts/bulk-move').set(bearer(admin)).send({ contactIds: [id], parent_id: other })).status).toBe(200);
    expect((await update(id, { phone: '0666' }, tag)).status).toBe(412);

    const moved = await etagOf(`/api/contacts/${id}`, admin);
    expect((await api().delete(`/api/contacts/${other}`).set(bearer(admin))).status).toBe(200);
    // its parent deleted, the contact is a root now: what the caller read is no longer so
    expect((await move(id, parent, moved)).status).toBe(412);
  });

  test('`*` matches any current contact; a weak tag, a list\'s ETag or a malformed value does not', async () => {
    const id = await createContact();
    expect((await update(id, { phone: '0777' }, '*')).status).toBe(200);
    const tag = await etagOf(`/api/contacts/${id}`, admin);
    expect((await update(id, { phone: '0888' }, `W/${tag}`)).status).toBe(412);
    expect((await update(id, { phone: '0888' }, await etagOf('/api/contacts', admin))).status).toBe(412);
    expect((await update(id, { phone: '0888' }, 'garbage')).status).toBe(412);
    expect((await update(id, { phone: '0888' }, `"x", ${tag}`)).status).toBe(200);
  });

  test('an ETag of one contact does not hold for another', async () => {
    const first = await createContact();
    const second = await createContact();
    const tag = await etagOf(`/api/contacts/${first}`, admin);
    expect((await update(second, { phone: '0999' }, tag)).status).toBe(412);
  });

  test('what would refuse the request anyway comes first: 404, 403 and 400 before 412', async () => {
    const id = await createContact();
    const tag = await etagOf(`/api/contacts/${id}`, admin);
    expect((await update(id, { phone: '0123' })).status).toBe(200);
    expect((await update(2_000_000_000, { phone: '1' }, tag)).status).toBe(404);
    expect((await update(id, { phone: '1' }, tag, reader)).status).toBe(403);
    const invalid = await update(id, { email: 'not-an-email' }, tag);
    expect(invalid.status).toBe(400);
    expect((await update(id, { phone: '1' }, tag)).status).toBe(412);
  });
});

test('CORS lets a browser read the ETag', async () => {
  const res = await api().get(`/api/contacts/${admin.id}`).set(bearer(reader)).set('Origin', 'http://app.example.test');
  expect(res.status).toBe(200);
  expect(String(res.headers['access-control-expose-headers'])).toMatch(/\bETag\b/);
});

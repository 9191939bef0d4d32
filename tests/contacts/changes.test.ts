import request from 'supertest';
import { changeDirectory, ChangesPruning, insertContact, pruneChanges } from '../../src/modules/contacts';
import { updateContact } from '../../src/modules/contacts/data/contact.writer';
import { findUserRow } from '../../src/modules/contacts/data/users.queries';
import { setupOwnTestContext, setupTestContext, type TestContext } from '../helpers/context';
import { anyDesignationId, bearer, createOrganization, createUnit, createUser, unique, type TestUser } from '../helpers/factory';
import { holdDirectoryLock } from '../helpers/tree';
import { csv, HEADER } from '../transfer/transfer-support';
import { NotFoundError } from '../../src/lib/errors';

/**
 * The change feed, GET /api/contacts/changes (docs/changes.md): every writer of contacts records
 * its changes in its own transaction, one row per contact per change, read back in
 * (version, contact_id) order with the contact as the list shows it. On MySQL the test files
 * share one database, so each test follows the feed from a cursor taken before its own writes
 * and looks at its own contacts among whatever else committed meanwhile.
 */

const ctx = setupTestContext({ RATE_LIMIT_MAX: '1000000' });
const api = (c: TestContext = ctx) => request(c.app);

interface Change {
  cursor: string;
  at: string;
  type: string;
  contact_id: number;
  contact: Record<string, unknown> | null;
}

/** The version of a change, read from its cursor (opaque to clients; a test may look). */
const versionOf = (cursor: string) => Number(Buffer.from(cursor, 'base64url').toString('utf8').split('.')[0]);

/** The feed's cursor at this moment: X-Changes-Cursor of a list. */
async function cursorNow(caller: TestUser, c: TestContext = ctx): Promise<string> {
  const res = await api(c).get('/api/contacts?limit=1').set(bearer(caller));
  expect(res.status).toBe(200);
  return String(res.headers['x-changes-cursor']);
}

/** Every change after `cursor`, page after page until has_more is false; and the cursor to go on from. */
async function follow(caller: TestUser, cursor: string, c: TestContext = ctx, limit = 1000): Promise<{ changes: Change[]; cursor: string }> {
  const changes: Change[] = [];
  for (;;) {
    const res = await api(c).get(`/api/contacts/changes?cursor=${cursor}&limit=${limit}`).set(bearer(caller));
    expect(res.status).toBe(200);
    changes.push(...res.body.data.changes);
    cursor = res.body.data.next_cursor;
    if (!res.body.data.has_more) return { changes, cursor };
  }
}

/** The changes of these contacts only, as [contact_id, type] in the feed's order. */
const of = (changes: Change[], ids: number[]) => changes.filter((c) => ids.includes(c.contact_id)).map((c) => [c.contact_id, c.type]);

let superAdmin: TestUser;
let unitId: number;
let designationId: number;
beforeAll(async () => {
  unitId = (await createUnit(ctx)).id;
  superAdmin = await createUser(ctx, { role: 'Super_admin', unit_id: unitId });
  designationId = await anyDesignationId(ctx);
});

const newContact = (extra: Record<string, unknown> = {}) => {
  const tag = unique('CF').slice(0, 40);
  return { name: `Feed ${tag}`, service_no: tag, email: `${tag.toLowerCase()}@feed.test`, phone: '01700000000', unit_id: unitId, designation_id: designationId, ...extra };
};

async function create(extra: Record<string, unknown> = {}): Promise<number> {
  const res = await api().post('/api/contacts').set(bearer(superAdmin)).send(newContact(extra));
  expect(res.status).toBe(201);
  return res.body.data.contact.id;
}

describe('GET /api/contacts/changes: each kind of change, with the contact it names', () => {
  test('a create is `created`, with the contact as GET /api/contacts shows it (level included)', async () => {
    const from = await cursorNow(superAdmin);
    const id = await create();
    const { changes } = await follow(superAdmin, from);
    const mine = changes.filter((c) => c.contact_id === id);
    expect(mine.map((c) => c.type)).toEqual(['created']);
    const listed = await api().get(`/api/contacts?unit_id=${unitId}&format=flat&limit=1000`).set(bearer(superAdmin));
    expect(mine[0].contact).toEqual(listed.body.data.contacts.find((c: { id: number }) => c.id === id));
    expect(mine[0].at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(Math.abs(Date.parse(mine[0].at) - Date.now())).toBeLessThan(60_000);
  });

  test('a change of a listed field is `updated`; a PUT that changes nothing, and a password reset, are no change', async () => {
    const id = await create();
    const from = await cursorNow(superAdmin);
    const same = await api().put(`/api/contacts/${id}`).set(bearer(superAdmin)).send({ phone: '01700000000' });
    expect(same.status).toBe(200);
    const reset = await api().put(`/api/contacts/${id}/password`).set(bearer(superAdmin)).send({ newPassword: 'Reset1Pass' });
    expect(reset.status).toBe(200);
    const changed = await api().put(`/api/contacts/${id}`).set(bearer(superAdmin)).send({ name: 'Feed Renamed', phone: '01800000000' });
    expect(changed.status).toBe(200);
    const { changes } = await follow(superAdmin, from);
    expect(of(changes, [id])).toEqual([[id, 'updated']]);
    expect(changes.find((c) => c.contact_id === id)!.contact).toMatchObject({ id, name: 'Feed Renamed', phone: '01800000000' });
  });

  test('a new parent is `moved`, through PUT /:id/move and through PUT /:id with other fields changed too', async () => {
    const parent = await create();
    const a = await create();
    const b = await create();
    const from = await cursorNow(superAdmin);
    expect((await api().put(`/api/contacts/${a}/move`).set(bearer(superAdmin)).send({ parent_id: parent })).status).toBe(200);
    expect((await api().put(`/api/contacts/${b}`).set(bearer(superAdmin)).send({ parent_id: parent, name: 'Feed Moved And Renamed' })).status).toBe(200);
    const { changes } = await follow(superAdmin, from);
    expect(of(changes, [parent, a, b])).toEqual([[a, 'moved'], [b, 'moved']]);
    expect(changes.find((c) => c.contact_id === b)!.contact).toMatchObject({ parent_id: parent, name: 'Feed Moved And Renamed', level: 1 });
  });

  test('a delete is `deleted` with contact null, and each child it made a root is `moved`, in the same version', async () => {
    const parent = await create();
    const [c1, c2] = [await create({ parent_id: parent }), await create({ parent_id: parent })];
    const from = await cursorNow(superAdmin);
    expect((await api().delete(`/api/contacts/${parent}`).set(bearer(superAdmin))).status).toBe(200);
    const { changes } = await follow(superAdmin, from);
    const mine = changes.filter((c) => [parent, c1, c2].includes(c.contact_id));
    expect(mine.map((c) => [c.contact_id, c.type]).sort()).toEqual([[c1, 'moved'], [c2, 'moved'], [parent, 'deleted']].sort());
    expect(mine.find((c) => c.contact_id === parent)!.contact).toBeNull();
    expect(mine.find((c) => c.contact_id === c1)!.contact).toMatchObject({ id: c1, parent_id: null, level: 0 });
    expect(new Set(mine.map((c) => versionOf(c.cursor))).size).toBe(1);
  });

  test('a bulk move is one `moved` per contact whose parent changes, all of one version; one already there is none', async () => {
    const parent = await create();
    const already = await create({ parent_id: parent });
    const [m1, m2, m3] = [await create(), await create(), await create()];
    const from = await cursorNow(superAdmin);
    const res = await api().post('/api/contacts/bulk-move').set(bearer(superAdmin)).send({ contactIds: [m1, m2, m3, already], parent_id: parent });
    expect(res.status).toBe(200);
    const { changes } = await follow(superAdmin, from);
    const mine = changes.filter((c) => [m1, m2, m3, already].includes(c.contact_id));
    expect(mine.map((c) => [c.contact_id, c.type])).toEqual([[m1, 'moved'], [m2, 'moved'], [m3, 'moved']]);
    expect(new Set(mine.map((c) => versionOf(c.cursor))).size).toBe(1);
    expect(mine.every((c) => c.contact!.parent_id === parent)).toBe(true);
  });

  test('a bulk delete is one `deleted` per contact, all of one version', async () => {
    const ids = [await create(), await create(), await create()];
    const from = await cursorNow(superAdmin);
    const res = await api().post('/api/contacts/bulk-delete').set(bearer(superAdmin)).send({ contactIds: ids });
    expect(res.status).toBe(200);
    const { changes } = await follow(superAdmin, from);
    const mine = changes.filter((c) => ids.includes(c.contact_id));
    expect(mine.map((c) => [c.contact_id, c.type, c.contact])).toEqual(ids.map((id) => [id, 'deleted', null]));
    expect(new Set(mine.map((c) => versionOf(c.cursor))).size).toBe(1);
  });

  test('an import (POST /api/contacts/import) is one `created` per new row, of one version; an upsert row that changes a contact is `updated`', async () => {
    const unitCode = String((await ctx.db('units').where({ id: unitId }).first('code')).code);
    const designation = String((await ctx.db('designations').where({ id: designationId }).first('name')).name);
    const tags = [unique('IF').slice(0, 40), unique('IF').slice(0, 40), unique('IF').slice(0, 40)];
    const row = (tag: string, name: string, parent = '') => [name, tag, `${tag.toLowerCase()}@feed.test`, '01700000000', unitCode, designation, parent];
    const from = await cursorNow(superAdmin);
    const file = csv([HEADER, row(tags[0], 'Import Root'), row(tags[1], 'Import Child', tags[0]), row(tags[2], 'Import Grandchild', tags[1])]);
    const upload = (text: string, query = '') =>
      api().post(`/api/contacts/import${query}`).set(bearer(superAdmin)).attach('file', Buffer.from(text), { filename: 'contacts.csv', contentType: 'text/csv' });
    expect((await upload(file)).status).toBe(200);
    const ids = (await ctx.db('users').whereIn('service_no', tags).orderBy('id').pluck('id')).map(Number);
    const first = await follow(superAdmin, from);
    const created = first.changes.filter((c) => ids.includes(c.contact_id));
    expect(created.map((c) => c.type)).toEqual(['created', 'created', 'created']);
    expect(new Set(created.map((c) => versionOf(c.cursor))).size).toBe(1);
    expect(created.map((c) => c.contact!.name).sort()).toEqual(['Import Child', 'Import Grandchild', 'Import Root']);

    const upsert = csv([HEADER, row(tags[2], 'Import Grandchild Renamed', tags[1])]);
    expect((await upload(upsert, '?mode=upsert')).status).toBe(200);
    const second = await follow(superAdmin, first.cursor);
    expect(of(second.changes, ids)).toEqual([[ids[2], 'updated']]);
  });

  test('a contact written twice in one change is one row, of the stronger type: created, then renamed and moved, stays `created`', async () => {
    const from = await cursorNow(superAdmin);
    const parent = await create();
    const id = await changeDirectory(ctx.db, async (trx) => {
      const tag = unique('CT').slice(0, 40);
      const inserted = await insertContact(trx, { name: `Twice ${tag}`, email: `${tag.toLowerCase()}@feed.test`, service_no: tag, unit_id: unitId, designation_id: designationId });
      await updateContact(trx, (await findUserRow(trx, inserted))!, { name: `Twice Renamed ${tag}`, parent_id: parent });
      return inserted;
    });
    const { changes } = await follow(superAdmin, from);
    expect(of(changes, [id])).toEqual([[id, 'created']]);
    expect(changes.find((c) => c.contact_id === id)!.contact).toMatchObject({ parent_id: parent });
  });
});

describe('changes committed together (the group commit of changes queued behind the lock)', () => {
  test('each change of a group keeps its own version, and one refused inside the group leaves no row', async () => {
    const [a, b, c] = [await create(), await create(), await create()];
    const rename = (id: number, name: string, refuse = false) =>
      changeDirectory(ctx.db, async (trx) => {
        await updateContact(trx, (await findUserRow(trx, id))!, { name });
        if (refuse) throw new NotFoundError('Contact not found');
      });
    const from = await cursorNow(superAdmin);
    const lock = await holdDirectoryLock(ctx.db);
    const refused = rename(a, 'Group Refused', true);
    const first = rename(b, 'Group First');
    const second = rename(c, 'Group Second');
    await lock.release();
    await expect(refused).rejects.toThrow(NotFoundError);
    await Promise.all([first, second]);
    const { changes } = await follow(superAdmin, from);
    expect(of(changes, [a, b, c])).toEqual([[b, 'updated'], [c, 'updated']]);
    const [vb, vc] = [b, c].map((id) => versionOf(changes.find((x) => x.contact_id === id)!.cursor));
    expect(vc).toBe(vb + 1);
  });
});

describe('GET /api/contacts/changes: paging and cursors', () => {
  test('pages of `limit` follow each other oldest first, has_more true until the last: each change once, in (version, contact) order', async () => {
    const from = await cursorNow(superAdmin);
    const ids = [await create(), await create(), await create(), await create(), await create()];
    const pages: Change[][] = [];
    let cursor = from;
    for (;;) {
      const res = await api().get(`/api/contacts/changes?cursor=${cursor}&limit=2`).set(bearer(superAdmin));
      expect(res.status).toBe(200);
      const { changes, next_cursor: next, has_more: more } = res.body.data;
      expect(changes.length).toBeLessThanOrEqual(2);
      if (more) {
        expect(changes).toHaveLength(2);
        expect(next).toBe(changes[1].cursor);
      }
      pages.push(changes);
      cursor = next;
      if (!more) break;
    }
    expect(pages.length).toBeGreaterThanOrEqual(3);
    const all = pages.flat();
    expect(of(all, ids)).toEqual(ids.map((id) => [id, 'created']));
    const keys = all.map((c) => Buffer.from(c.cursor, 'base64url').toString('utf8').split('.').map(Number));
    for (let i = 1; i < keys.length; i++) {
      const [[v0, c0], [v1, c1]] = [keys[i - 1], keys[i]];
      expect(v1 > v0 || (v1 === v0 && c1 > c0)).toBe(true);
    }
  });

  test('the default page is at most 100 changes; limit 1000 is allowed', async () => {
    const res = await api().get('/api/contacts/changes').set(bearer(superAdmin));
    expect(res.status).toBe(200);
    expect(res.body.message).toBe('Contact changes retrieved successfully');
    expect(res.body.data.changes.length).toBeLessThanOrEqual(100);
    expect((await api().get('/api/contacts/changes?limit=1000').set(bearer(superAdmin))).status).toBe(200);
  });

  test('without a cursor the feed starts at the oldest change kept', async () => {
    const res = await api().get('/api/contacts/changes?limit=1').set(bearer(superAdmin));
    const oldest = await ctx.db('contact_changes').orderBy([{ column: 'version' }, { column: 'contact_id' }]).first('version', 'contact_id');
    expect(res.body.data.changes[0].contact_id).toBe(Number(oldest.contact_id));
    expect(versionOf(res.body.data.changes[0].cursor)).toBe(Number(oldest.version));
  });

  test('an empty page gives back a cursor that a later call continues from, and sees the next change', async () => {
    const { cursor } = await follow(superAdmin, await cursorNow(superAdmin));
    // nothing of this test's own yet: a page at the end of the feed may be empty (or hold another file's changes)
    const { cursor: atEnd } = await follow(superAdmin, cursor);
    const id = await create();
    const { changes } = await follow(superAdmin, atEnd);
    expect(of(changes, [id])).toEqual([[id, 'created']]);
  });

  test('a page with nothing new answers an empty list, has_more false, and a cursor at least as far', async () => {
    const { cursor } = await follow(superAdmin, await cursorNow(superAdmin));
    const res = await api().get(`/api/contacts/changes?cursor=${cursor}`).set(bearer(superAdmin));
    expect(res.status).toBe(200);
    const { changes, next_cursor: next, has_more: more } = res.body.data;
    if (changes.length === 0) {
      expect(more).toBe(false);
      expect(versionOf(next)).toBeGreaterThanOrEqual(versionOf(cursor));
    }
  });

  test.each([
    ['not base64url', 'abc$'],
    ['not a position', Buffer.from('12-3').toString('base64url')],
    ['a leading zero', Buffer.from('012.3').toString('base64url')],
    ['padding', `${Buffer.from('1.2').toString('base64url')}=`],
    ['a negative version', Buffer.from('-1.2').toString('base64url')],
    ['a contact past every id', Buffer.from('1.4294967296').toString('base64url')],
    ['empty', ''],
  ])('a malformed cursor (%s) is 400 Validation failed on field `cursor`', async (_what, cursor) => {
    const res = await api().get(`/api/contacts/changes?cursor=${encodeURIComponent(cursor)}`).set(bearer(superAdmin));
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ status: 'error', message: 'Validation failed' });
    expect(res.body.errors.map((e: { field: string }) => e.field)).toEqual(['cursor']);
  });

  test('a cursor given twice (?cursor=a&cursor=b) is 400 on field `cursor`', async () => {
    const cursor = await cursorNow(superAdmin);
    const res = await api().get(`/api/contacts/changes?cursor=${cursor}&cursor=${cursor}`).set(bearer(superAdmin));
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: { field: string }) => e.field)).toEqual(['cursor']);
  });

  test.each(['0', '1001', '-1', 'ten', '1.5'])('limit=%s is 400 on field `limit`', async (limit) => {
    const res = await api().get(`/api/contacts/changes?limit=${limit}`).set(bearer(superAdmin));
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: { field: string }) => e.field)).toEqual(['limit']);
  });

  test('a cursor ahead of the directory (of another database) is 410 Gone, telling to read the list again', async () => {
    const res = await api().get(`/api/contacts/changes?cursor=${Buffer.from('9007199254740991.0').toString('base64url')}`).set(bearer(superAdmin));
    expect(res.status).toBe(410);
    expect(res.body.message).toMatch(/read the list again \(GET \/api\/contacts\), then follow the changes from the cursor in its X-Changes-Cursor header/);
  });
});

describe('GET /api/contacts/changes: who may follow it', () => {
  test('without a token it is 401', async () => {
    expect((await api().get('/api/contacts/changes')).status).toBe(401);
  });

  test('a User may follow it, as a User may list the contacts', async () => {
    const user = await createUser(ctx);
    expect((await api().get('/api/contacts/changes?limit=1').set(bearer(user))).status).toBe(200);
  });

  test("an Admin sees another organization's changes too, as GET /api/contacts shows another organization's contacts", async () => {
    const orgA = await createOrganization(ctx);
    const orgB = await createOrganization(ctx);
    const unitA = (await createUnit(ctx)).id;
    const adminA = await createUser(ctx, { role: 'Admin', organization_id: orgA, unit_id: unitA });
    const adminB = await createUser(ctx, { role: 'Admin', organization_id: orgB });
    const from = await cursorNow(adminB);
    const res = await api().post('/api/contacts').set(bearer(adminA)).send(newContact({ unit_id: unitA }));
    expect(res.status).toBe(201);
    const id = res.body.data.contact.id;
    const { changes } = await follow(adminB, from);
    expect(of(changes, [id])).toEqual([[id, 'created']]);
    const listed = await api().get(`/api/contacts?unit_id=${unitA}&format=flat`).set(bearer(adminB));
    expect(listed.body.data.contacts.map((c: { id: number }) => c.id)).toContain(id);
    expect(await ctx.db('contact_changes').where({ contact_id: id }).first('organization_id')).toEqual({ organization_id: orgA });
  });

  test('a role without contacts.read is 403, as for the list', async () => {
    const role = await api().post('/api/roles').set(bearer(superAdmin)).send({ name: unique('NoRead '), permissions: [] });
    expect(role.status).toBe(201);
    const user = await createUser(ctx);
    await ctx.db('users').where({ id: user.id }).update({ role_id: role.body.data.role.id });
    const forbidden = { status: 'error', message: 'Insufficient permissions' };
    for (const path of ['/api/contacts/changes', '/api/contacts']) {
      const res = await api().get(path).set(bearer(user));
      expect([path, res.status, res.body]).toEqual([path, 403, forbidden]);
    }
  });
});

describe('X-Changes-Cursor on GET /api/contacts', () => {
  test('following the list\'s cursor sees a change made after the list', async () => {
    const id = await create();
    const list = await api().get(`/api/contacts?unit_id=${unitId}`).set(bearer(superAdmin));
    const cursor = list.headers['x-changes-cursor'];
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    // the list already shows the contact: the feed after its cursor does not hold its creation
    const before = await follow(superAdmin, cursor);
    expect(of(before.changes, [id])).toEqual([]);
    await api().put(`/api/contacts/${id}`).set(bearer(superAdmin)).send({ name: 'Feed After The List' });
    const { changes } = await follow(superAdmin, before.cursor);
    expect(of(changes, [id])).toEqual([[id, 'updated']]);
  });

  test('a 304 carries it too, and CORS exposes it to browsers', async () => {
    const first = await api().get('/api/contacts?limit=1').set(bearer(superAdmin)).set('Origin', 'http://localhost:5173');
    expect(first.headers['access-control-expose-headers']).toMatch(/X-Changes-Cursor/);
    const again = await api().get('/api/contacts?limit=1').set(bearer(superAdmin)).set('If-None-Match', first.headers.etag);
    if (again.status === 304) expect(again.headers['x-changes-cursor']).toMatch(/^[A-Za-z0-9_-]+$/);
  });

  test('an error answer carries none: a refused list showed nothing to follow on from', async () => {
    const res = await api().get('/api/contacts?limit=0').set(bearer(superAdmin));
    expect(res.status).toBe(400);
    expect(res.headers).not.toHaveProperty('x-changes-cursor');
  });
});

describe('on a database of its own: no other file writes there meanwhile, and pruning takes no other file\'s changes', () => {
  const own = setupOwnTestContext('feedown', { RATE_LIMIT_MAX: '1000000' });
  let admin: TestUser;
  beforeAll(async () => {
    admin = await createUser(own, { role: 'Super_admin' });
  });

  test('a poll at rest with nothing new (from the list\'s cursor) reads nothing of the feed: it costs what a 304 costs', async () => {
    const cursor = await cursorNow(admin, own);
    const statements: string[] = [];
    const seen = (q: { sql: string }) => statements.push(q.sql);
    own.db.on('query', seen);
    const res = await api(own).get(`/api/contacts/changes?cursor=${cursor}`).set(bearer(admin));
    own.db.off('query', seen);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ changes: [], next_cursor: cursor, has_more: false, pagination: { limit: 100, has_more: false, next_cursor: cursor } });
    expect(statements).toEqual([]);
  });

  const add = async () => {
    const tag = unique('PR').slice(0, 40);
    const body = { name: `Pruned ${tag}`, service_no: tag, email: `${tag.toLowerCase()}@feed.test`, phone: '01700000000', unit_id: admin.unit_id, designation_id: await anyDesignationId(own) };
    const res = await api(own).post('/api/contacts').set(bearer(admin)).send(body);
    expect(res.status).toBe(201);
    return res.body.data.contact.id as number;
  };

  test('after pruning, a cursor before the pruned version is 410 Gone saying what to do; the list\'s cursor and no cursor go on', async () => {
    const start = await cursorNow(admin, own);
    const old = [await add(), await add()];
    const middle = (await follow(admin, start, own)).changes.find((c) => c.contact_id === old[0])!.cursor;
    const recent = await add();
    // the first two changes are 40 days old
    const oldVersions = (await own.db('contact_changes').whereIn('contact_id', old).pluck('version')).map(Number);
    await own.db('contact_changes').where('version', '<=', Math.max(...oldVersions)).update({ at: new Date(Date.now() - 40 * 86_400_000) });
    const { removed, prunedThrough } = await pruneChanges(own.db, new Date(Date.now() - 30 * 86_400_000));
    expect(removed).toBeGreaterThanOrEqual(2);
    expect(prunedThrough).toBe(Math.max(...oldVersions));
    expect(await own.db('contact_changes').whereIn('contact_id', old).count({ n: '*' })).toEqual([{ n: 0 }]);

    for (const cursor of [start, middle]) {
      const gone = await api(own).get(`/api/contacts/changes?cursor=${cursor}`).set(bearer(admin));
      expect(gone.status).toBe(410);
      expect(gone.body).toEqual({
        status: 'error',
        message: 'Changes before this cursor are no longer kept: read the list again (GET /api/contacts), then follow the changes from the cursor in its X-Changes-Cursor header',
      });
    }
    // from the start: the recent change, not the pruned ones
    const fresh = await api(own).get('/api/contacts/changes').set(bearer(admin));
    expect(fresh.status).toBe(200);
    expect(of(fresh.body.data.changes, [...old, recent])).toEqual([[recent, 'created']]);
    // what the 410 says to do works
    const listCursor = await cursorNow(admin, own);
    expect((await api(own).get(`/api/contacts/changes?cursor=${listCursor}`).set(bearer(admin))).status).toBe(200);
  });

  test('a cursor at rest after the last change is not made gone by pruning that change', async () => {
    await add();
    const { cursor } = await follow(admin, await cursorNow(admin, own), own);
    await own.db('contact_changes').update({ at: new Date(Date.now() - 40 * 86_400_000) });
    await pruneChanges(own.db, new Date(Date.now() - 30 * 86_400_000));
    expect(await own.db('contact_changes').count({ n: '*' })).toEqual([{ n: 0 }]);
    const res = await api(own).get(`/api/contacts/changes?cursor=${cursor}`).set(bearer(admin));
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ changes: [], has_more: false });
  });

  test('the service\'s pruning (ChangesPruning) prunes on its timer and stops; with a retention of 0 it never starts', async () => {
    await add();
    await own.db('contact_changes').update({ at: new Date(Date.now() - 40 * 86_400_000) });
    const never = new ChangesPruning({ db: own.db, retentionDays: 0, onPruned: () => undefined, onError: () => undefined }).start(0);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(Number((await own.db('contact_changes').count({ n: '*' }))[0].n)).toBeGreaterThan(0);
    await never.stop();
    let failed: unknown = null;
    const started: { pruning?: ChangesPruning } = {};
    const pruned = new Promise<{ removed: number }>((resolve) => {
      started.pruning = new ChangesPruning({ db: own.db, retentionDays: 30, onPruned: resolve, onError: (err) => (failed = err) }).start(0);
    });
    expect((await pruned).removed).toBeGreaterThan(0);
    await started.pruning!.stop();
    expect(failed).toBeNull();
    expect(await own.db('contact_changes').count({ n: '*' })).toEqual([{ n: 0 }]);
  });
});

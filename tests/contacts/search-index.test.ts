import fc from 'fast-check';
import { createDb } from '../../src/lib/db';
import { compareCodePoints } from '../../src/lib/text';
import { SearchIndex } from '../../src/modules/contacts/search/search-index';
import { directoryVersions } from '../../src/modules/contacts/data/tree/lock';
import { setupOwnTestContext } from '../helpers/context';
import request from 'supertest';
import { bearer, createUnit, createUser, unique } from '../helpers/factory';

/**
 * The in-memory search index's rules of freshness: a snapshot answers alone a search whose
 * versions it has reached; otherwise it answers with the contacts changed since its build, read
 * afresh; SQL answers only before the first build; and a new build starts at most once per
 * refresh interval. (What it answers is the search suite's, run on both ways of searching, and
 * the listing's property test's.)
 */

// A database of its own: on the shared MySQL database the other files' writes would bump the
// versions these tests compare, and their imports could outgrow MAX_CHANGED (a build at once).
const ctx = setupOwnTestContext('searchindex');

/** The directory's versions now, as a request's session reads them. */
const versions = async () => {
  const v = await directoryVersions(ctx.db);
  return { search: v.search_version, directory: v.version };
};
const ALL = { role_filter: 'all', include_inactive: false } as const;

/** Asks until the index answers at `v` (its first build runs in the background). */
async function built(index: SearchIndex, v: { search: number; directory: number }, needle: string, tree = false) {
  for (let i = 0; i < 200; i++) {
    const view = await index.at(v, needle, tree);
    if (view) return view;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('the index was not built');
}

describe('SearchIndex with a refresh interval', () => {
  test('builds in the background, answers a newer version with the contacts changed since, and rebuilds once the interval has passed', async () => {
    let clock = 1_000_000;
    let builds = 0;
    const errors: unknown[] = [];
    const index = new SearchIndex({ db: ctx.db, refreshMs: 60_000, rebuildAfter: 0, onError: (err) => errors.push(err), onBuild: () => builds++, now: () => clock });
    const tag = unique('idx').toLowerCase();
    const first = await createUser(ctx, { name: `Indexed ${tag} One` });
    const v1 = await versions();

    // no snapshot yet: SQL answers while the first one is built
    expect(await index.at(v1, tag)).toBeNull();
    const snapshot = await built(index, v1, tag);
    expect(await snapshot.search(tag, ALL, 10)).toEqual({ ids: [first.id], total: 1 });
    expect(builds).toBe(1);

    // a change: within the interval no new build starts, and the snapshot answers with the
    // changed contact as it is now
    const second = await createUser(ctx, { name: `Indexed ${tag} Two` });
    const v2 = await versions();
    const changed = await index.at(v2, tag);
    expect(await changed?.search(tag, ALL, 10)).toEqual({ ids: [first.id, second.id], total: 2 });
    expect(changed?.changes).toBeGreaterThanOrEqual(1);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(builds).toBe(1);

    // once the interval has passed, the next search starts one, and then the snapshot answers alone
    clock += 60_000;
    await index.at(v2, tag);
    for (let i = 0; i < 200 && builds < 2; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    const fresh = await built(index, v2, tag);
    expect(await fresh.search(tag, ALL, 10)).toEqual({ ids: [first.id, second.id], total: 2 });
    expect(fresh.changes).toBe(0);
    expect(errors).toEqual([]);
  });

  test('after the interval, a build starts only once `rebuildAfter` contacts changed since the last: fewer are added to each answer instead', async () => {
    let clock = 3_000_000;
    let builds = 0;
    const index = new SearchIndex({ db: ctx.db, refreshMs: 1000, rebuildAfter: 3, onError: () => undefined, onBuild: () => builds++, now: () => clock });
    const tag = unique('few').toLowerCase();
    const made = [await createUser(ctx, { name: `Few ${tag} 0` })];
    await built(index, await versions(), tag);
    expect(builds).toBe(1);
    const settle = () => new Promise((resolve) => setTimeout(resolve, 100));
    // two changed contacts, the interval long past: the snapshot answers with them, no build
    for (const n of [1, 2]) made.push(await createUser(ctx, { name: `Few ${tag} ${n}` }));
    clock += 60_000;
    const view = await index.at(await versions(), tag);
    expect((await view?.search(tag, ALL, 10))?.total).toBe(3);
    expect(view?.changes).toBe(2);
    await settle();
    expect(builds).toBe(1);
    // the third: the next search starts a build, and the new snapshot answers alone
    made.push(await createUser(ctx, { name: `Few ${tag} 3` }));
    const v = await versions();
    expect((await index.at(v, tag))?.changes).toBe(3);
    for (let i = 0; i < 200 && builds < 2; i++) await settle();
    expect(builds).toBe(2);
    const fresh = await built(index, v, tag);
    expect(fresh.changes).toBe(0);
    expect(await fresh.search(tag, ALL, 10)).toEqual({ ids: made.map((c) => c.id), total: 4 });
  });

  test('a build that ends older than a search asked for while it ran doubles the wait for the next (at most 8 times); one that ends current brings it back', async () => {
    let clock = 2_000_000;
    let builds = 0;
    const index = new SearchIndex({ db: ctx.db, refreshMs: 1000, rebuildAfter: 0, onError: () => undefined, onBuild: () => builds++, now: () => clock });
    const tag = unique('pace').toLowerCase();
    await createUser(ctx, { name: `Paced ${tag}` });
    const v = await versions();
    // a version no build reaches
    const ahead = { search: v.search + 1_000_000, directory: v.directory + 1_000_000 };
    const settled = async (count: number) => {
      for (let i = 0; i < 200 && builds < count; i++) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(builds).toBe(count);
    };
    // Starts a build now, and asks while it runs for a version no build reaches (as a write
    // that commits during the build makes the search ask for).
    const lateBuild = async (count: number) => {
      // the second asks in the same tick as the first, which starts the build
      expect(await Promise.all([index.at(ahead, tag), index.at(ahead, tag)])).toEqual([null, null]);
      await settled(count);
    };
    /** whether a search now starts a build */
    const startsOne = async () => {
      const before = builds;
      expect(await index.at(ahead, tag)).toBeNull();
      await new Promise((resolve) => setTimeout(resolve, 100));
      return builds > before;
    };
    await lateBuild(1);
    // the wait is now 2 s: not after 1 s, after 2
    clock += 1000;
    expect(await startsOne()).toBe(false);
    clock += 1000;
    await lateBuild(2);
    for (const wait of [4000, 8000, 8000]) {
      clock += wait - 1;
      expect(await startsOne()).toBe(false);
      clock += 1;
      await lateBuild(builds + 1);
    }
    // a build that ends current (nothing newer asked while it ran) brings the wait back to 1 s
    await createUser(ctx, { name: `Paced ${tag} again` });
    const v2 = await versions();
    clock += 8000;
    // the snapshot answers with the changed contacts, and the interval passed: a build starts
    // (and may end while the changed contacts are read)
    const before = builds;
    expect(await index.at(v2, tag)).not.toBeNull();
    await settled(before + 1);
    const view = await index.at(v2, tag);
    expect(view?.changes).toBe(0);
    clock += 1000;
    expect(await startsOne()).toBe(true);
  });

  test('a term holding the separator of the fields, or shorter than two, is left to SQL', async () => {
    const index = new SearchIndex({ db: ctx.db, refreshMs: 0, onError: () => undefined });
    const v = await versions();
    expect(await index.at(v, 'ab\u0000cd')).toBeNull();
    expect(await index.at(v, 'a')).toBeNull();
    expect(await index.at(v, 'ab')).not.toBeNull();
  });

  test('a build that fails is reported, and leaves the search to SQL', async () => {
    const gone = createDb(ctx.config.db);
    await gone.destroy();
    const errors: unknown[] = [];
    const index = new SearchIndex({ db: gone, refreshMs: 0, onError: (err) => errors.push(err) });
    expect(await index.at(await versions(), 'abc')).toBeNull();
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(Error);
  });
});

describe('the search version', () => {
  const api = () => request(ctx.app);
  const version = async () => (await versions()).search;

  test('a move leaves it, so a snapshot stays current; adding, changing and deleting a contact bump it', async () => {
    const admin = await createUser(ctx, { role: 'Super_admin' });
    const unitId = (await createUnit(ctx)).id;
    const parent = await createUser(ctx, { unit_id: unitId });
    const child = await createUser(ctx, { unit_id: unitId });
    const auth = bearer(admin);

    const v = await version();
    expect((await api().put(`/api/contacts/${child.id}/move`).set(auth).send({ parent_id: parent.id })).status).toBe(200);
    expect((await api().post('/api/contacts/bulk-move').set(auth).send({ contactIds: [child.id], parent_id: null })).status).toBe(200);
    expect((await api().put(`/api/contacts/${child.id}`).set(auth).send({ parent_id: parent.id })).status).toBe(200);
    expect(await version()).toBe(v);

    const bumps = [
      () => api().put(`/api/contacts/${child.id}`).set(auth).send({ name: `Renamed ${unique()}` }),
      () => api().put(`/api/contacts/${child.id}`).set(auth).send({ mobile: '01999999999' }),
      () => api().delete(`/api/contacts/${child.id}`).set(auth),
    ];
    for (const change of bumps) {
      const before = await version();
      expect((await change()).status).toBe(200);
      expect(await version()).toBeGreaterThan(before);
    }
    const before = await version();
    await createUser(ctx, { unit_id: unitId });
    expect(await version()).toBeGreaterThan(before);
  });
});

describe('a listing and a move', () => {
  const api = () => request(ctx.app);

  test('a move leaves a snapshot current for the search endpoint; a listing, which needs the directory version too, gets the moved contact as it is now', async () => {
    const clock = 2_000_000;
    let builds = 0;
    const index = new SearchIndex({ db: ctx.db, refreshMs: 60_000, onError: () => undefined, onBuild: () => builds++, now: () => clock });
    const admin = await createUser(ctx, { role: 'Super_admin' });
    const unitId = (await createUnit(ctx)).id;
    const tag = unique('mv').toLowerCase();
    const parent = await createUser(ctx, { unit_id: unitId, name: `Parent ${tag}` });
    const child = await createUser(ctx, { unit_id: unitId, name: `Child ${tag}` });
    const filters = { unit_id: unitId, ...ALL };
    const before = await versions();
    const view = await built(index, before, tag, true);
    const whole = { offset: 0, limit: 10 };
    expect(await view.listingPage(tag, filters, undefined, whole)).toMatchObject({ ids: [child.id, parent.id], statistics: { total_contacts: 2, root_contacts: 2 } });

    expect((await api().put(`/api/contacts/${child.id}/move`).set(bearer(admin)).send({ parent_id: parent.id })).status).toBe(200);
    const after = await versions();
    expect(after.directory).toBeGreaterThan(before.directory);
    expect((await index.at(after, tag))?.changes).toBe(0);
    // the listing: the child now under its parent, in the pre-order, without a new build
    const moved = await index.at(after, tag, true);
    expect(moved?.changes).toBeGreaterThanOrEqual(1);
    expect(await moved?.listingPage(tag, filters, undefined, whole)).toMatchObject({ ids: [parent.id, child.id], statistics: { total_contacts: 2, root_contacts: 1 } });
    expect(builds).toBe(1);
  });
});

describe('compareCodePoints', () => {
  const byCodePoints = (a: string, b: string) => {
    const x = Array.from(a, (c) => c.codePointAt(0)!);
    const y = Array.from(b, (c) => c.codePointAt(0)!);
    for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i] - y[i];
    return x.length - y.length;
  };

  test('orders like the code points, also above U+FFFF (which sort after U+E000-U+FFFF)', () => {
    expect(compareCodePoints('\u{1F600}', '\uFFFD')).toBeGreaterThan(0);
    expect(compareCodePoints('ab', 'abc')).toBeLessThan(0);
    expect(compareCodePoints('same', 'same')).toBe(0);
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.string({ unit: 'binary' }), (a, b) => {
        expect(Math.sign(compareCodePoints(a, b))).toBe(Math.sign(byCodePoints(a, b)));
        expect(Math.sign(compareCodePoints(a + b, a))).toBe(Math.sign(byCodePoints(a + b, a)));
      }),
      { numRuns: 2000 },
    );
  });
});

describe('the exact match rank, from the snapshot text', () => {
  // the snapshot keeps a contact's fields in one lower-cased text, not its service number and
  // e-mail apart: an exact service number or e-mail (rank 0) is read from that text, and an
  // e-mail stored with capitals (an old row, a direct load) is not an exact match, as in SQL
  test('an exact service number or lower-case e-mail ranks first, an e-mail stored with capitals does not', async () => {
    const tag = unique('rank').toLowerCase().replace(/[^a-z0-9]/g, '');
    const email = `${tag}@example.test`;
    const casedTerm = `${tag}2@example.test`;
    const exact = await createUser(ctx, { name: `Zed ${tag}` });
    const prefixed = await createUser(ctx, { name: `${email} Named` });
    const cased = await createUser(ctx, { name: `Zed Cased ${tag}` });
    const prefixedToo = await createUser(ctx, { name: `${casedTerm} Named` });
    await ctx.db('users').where({ id: exact.id }).update({ email });
    await ctx.db('users').where({ id: cased.id }).update({ email: `${tag[0].toUpperCase()}${tag.slice(1)}2@example.test` });
    const serviceNo = String((await ctx.db('users').where({ id: prefixed.id }).first('service_no')).service_no).toLowerCase();
    const index = new SearchIndex({ db: ctx.db, refreshMs: 0, onError: (err) => { throw err; } });
    const view = await built(index, await versions(), email);
    // the exact e-mail first (rank 0), then the name that starts with the term (rank 1)
    expect((await view.search(email, ALL, 10)).ids).toEqual([exact.id, prefixed.id]);
    // stored with a capital: no exact match, so after the name that starts with the term
    expect((await view.search(casedTerm, ALL, 10)).ids).toEqual([prefixedToo.id, cased.id]);
    expect((await view.search(serviceNo, ALL, 10)).ids[0]).toBe(prefixed.id);
  });
});

import fc from 'fast-check';
import { prng } from '../../scripts/demo-data';
import { changeDirectory, insertContact } from '../../src/modules/contacts';
import { insertContactForest } from '../../src/modules/contacts/data/forest.writer';
import { findUserRow } from '../../src/modules/contacts/data/users.queries';
import { countStatistics, listPage, searchSet, statisticsOf } from '../../src/modules/contacts/data/listing.queries';
import { LIST_SEARCH_FIELDS } from '../../src/modules/contacts/domain/grams';
import { ChangedContacts } from '../../src/modules/contacts/search/overlay';
import { rankedSearch } from '../../src/modules/contacts/data/search.queries';
import { loadSnapshot } from '../../src/modules/contacts/search/columns';
import { SearchView } from '../../src/modules/contacts/search/view';
import { Walkers } from '../../src/modules/contacts/search/walkers';
import { subtreeRange } from '../../src/modules/contacts/data/tree/lineage';
import { deactivateContacts, updateContact } from '../../src/modules/contacts/data/contact.writer';
import { setupOwnTestContext } from '../helpers/context';
import { anyDesignationId, createDepartment, createUnit, unique } from '../helpers/factory';
import type { ContactFilters, RoleFilter } from '../../src/modules/contacts/domain/filters';

/**
 * The in-memory index's answers (SearchView over a SearchSnapshot) against SQL's, for random
 * terms and filters over a random unit: a listing's set (searchSet), in the same order, any
 * page of it with its counters, the same listing's pages without the term (listPage), and the
 * search endpoint's ranked page (rankedSearch). Once with
 * a snapshot of the directory as it is, once with a snapshot from before a round of random
 * changes (renames, new phones, moves, deletions, new contacts created or imported) and the contacts changed since,
 * read afresh (overlay.ts): both must answer as SQL does now, the second also with its terms
 * walked on a walk thread (walkers.ts), and from walks kept over the snapshot before the
 * changes (kept-walks.ts), which skip the changed contacts only when asked again.
 */

// A database of its own: the snapshot is loaded once, and each case reads its subtree's range
// afresh; on the shared MySQL database another file's insert could relabel this unit's order keys
// in between (a gap used up nearby), and the snapshot's keys would no longer be the range's.
const ctx = setupOwnTestContext('listsearch');

// pieces that share trigrams, fold in surprising ways (Σ, İ) or are LIKE wildcards
const PIECES = ['ab', 'Ab', 'ba', 'qx', 'ΣΟ', 'ος', 'İz', 'x%', '_y', '07', '70', ' '];

describe('the index, current or with the contacts changed since, against SQL', () => {
  const random = prng(2026);
  const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)];
  const text = (n: number) => Array.from({ length: n }, () => pick(PIECES)).join('');
  const ids: number[] = [];
  const fields: string[] = [];
  let unitId = 0;
  let departments: number[] = [];
  let designationId = 0;

  /**
   * A new contact of the unit, under a random one of the earlier ones (or none), or under
   * `place.parent_id`: written as a create writes it, or as an import does (`imported`: the
   * forest writer, which stamps its rows itself).
   */
  async function addContact(place?: { parent_id: number; name: string }, imported = false): Promise<void> {
    const parents = (await ctx.db('users').whereIn('id', ids).where({ is_active: true }).pluck('id')).map(Number);
    const contact = {
      name: place?.name ?? text(3),
      // a valid address: on MySQL the other files' searches see these contacts too
      email: `${pick(['ab', 'ba', 'qx', '07'])}.${unique('e')}@x.test`.toLowerCase(),
      service_no: `${text(1)}${unique('s')}`.slice(0, 50),
      phone: `0${Math.floor(random() * 1e4)}`,
      mobile: random() < 0.5 ? null : text(2),
      unit_id: unitId,
      department_id: pick([null, ...departments]),
      designation_id: designationId,
      parent_id: place?.parent_id ?? (parents.length > 0 && random() < 0.7 ? pick(parents) : null),
      role_id: pick([1, 2, 3, 3]),
    };
    if (imported) {
      const { parent_id: parentId, ...rest } = contact;
      const written = await changeDirectory(ctx.db, (trx) => insertContactForest(trx, [{ ...rest, parent: parentId === null ? null : { id: parentId } }]));
      ids.push(written.get(contact.service_no)!);
    } else {
      ids.push(await changeDirectory(ctx.db, (trx) => insertContact(trx, contact)));
    }
    fields.push(contact.name, contact.email, contact.service_no, contact.phone, contact.mobile ?? '');
  }

  /** Random terms and filters: each view's answers equal SQL's. */
  async function agreesWithSql(view: SearchView, seed: number): Promise<void> {
    const term = fc.oneof(
      // a piece of a contact's field, in either case
      fc.tuple(fc.constantFrom(...fields), fc.nat(), fc.integer({ min: 2, max: 6 }), fc.boolean()).map(([field, from, length, upper]) => {
        const points = Array.from(field);
        const start = points.length > 0 ? from % points.length : 0;
        const piece = points.slice(start, start + length).join('');
        return upper ? piece.toUpperCase() : piece;
      }),
      fc.array(fc.constantFrom(...PIECES), { minLength: 1, maxLength: 3 }).map((p) => p.join('')),
    ).filter((t) => Array.from(t.toLowerCase()).length >= 2);
    const filters = fc.record({
      department: fc.constantFrom(undefined, ...departments),
      role_filter: fc.constantFrom<RoleFilter>('all', 'all', 'super_admin', 'admin', 'user'),
      include_inactive: fc.boolean(),
      parent: fc.oneof({ arbitrary: fc.constant(undefined), weight: 2 }, { arbitrary: fc.constantFrom(...ids), weight: 1 }),
      page: fc.record({ offset: fc.oneof(fc.constant(0), fc.nat(40)), limit: fc.integer({ min: 1, max: 30 }) }),
    });

    let nonEmpty = 0;
    await fc.assert(
      fc.asyncProperty(term, filters, async (search, { department, role_filter, include_inactive, parent, page }) => {
        const f: ContactFilters & { search: string } = { search, unit_id: unitId, department_id: department, role_filter, include_inactive };
        const needle = search.toLowerCase();
        const range = parent === undefined ? undefined : await subtreeRange(ctx.db, parent);
        const inSql = await searchSet(ctx.db, f, range, LIST_SEARCH_FIELDS);
        const whole = await view.listingPage(needle, f, range, { offset: 0, limit: 1000 });
        expect({ search, f, range, ...whole }).toEqual({ search, f, range, ids: inSql.map((m) => m.id), statistics: statisticsOf(inSql) });
        const paged = await view.listingPage(needle, f, range, page);
        expect({ search, f, range, page, ...paged }).toEqual({
          search, f, range, page, ids: inSql.slice(page.offset, page.offset + page.limit).map((m) => m.id), statistics: statisticsOf(inSql),
        });
        if (range === undefined) expect((await view.listingIds(needle, f)).sort((a, b) => a - b)).toEqual(inSql.map((m) => m.id).sort((a, b) => a - b));
        // a listing without a search, and the statistics: the counters over the whole filtered set
        const { search: _term, ...unsearched } = f;
        expect({ f: unsearched, range, counted: view.statistics(unsearched, range) }).toEqual({ f: unsearched, range, counted: await countStatistics(ctx.db, unsearched, range) });
        // and its pages from the index's pre-order (ContactReads reads them so, as deep as they reach), as SQL's OFFSET reads them
        for (const window of [{ offset: 0, limit: 1000 }, page]) {
          const inOrder = (await listPage(ctx.db, unsearched, range, window)).contacts.map((c) => c.id);
          expect({ f: unsearched, range, window, ids: view.listingWindow(unsearched, range, window) }).toEqual({ f: unsearched, range, window, ids: inOrder });
        }
        // the search endpoint: active contacts only, every role, the unit and department filters
        const endpoint = { ...f, role_filter: 'all', include_inactive: false } as const;
        expect({ search, f, ...(await view.search(needle, endpoint, page.limit)) }).toEqual({ search, f, ...(await rankedSearch(ctx.db, endpoint, page.limit)) });
        if (inSql.length > 0) nonEmpty++;
      }),
      { numRuns: 300, seed },
    );
    // the comparison meant something: many cases matched someone
    expect(nonEmpty).toBeGreaterThan(75);
  }

  beforeAll(async () => {
    unitId = (await createUnit(ctx)).id;
    departments = [(await createDepartment(ctx, unitId)).id, (await createDepartment(ctx, unitId)).id];
    designationId = await anyDesignationId(ctx);
    for (let i = 0; i < 60; i++) await addContact();
    // some deleted (their children become roots), one of them with its subtree
    await changeDirectory(ctx.db, (trx) => deactivateContacts(trx, ids.filter(() => random() < 0.15)));
  });

  test('a snapshot of the directory as it is answers as SQL does', async () => {
    await agreesWithSql(new SearchView(await loadSnapshot(ctx.db), null), 13);
  });

  test('a snapshot from before a round of changes, with the contacts changed since, answers as SQL does after them', async () => {
    const snapshot = await loadSnapshot(ctx.db);
    const changed = new ChangedContacts(snapshot);
    // walks kept while nothing had changed: asked again below, with the changed contacts' slots to skip
    const walked = { thread: 0, service: 0, kept: 0 };
    const onWalk = (on: 'thread' | 'service', kept: boolean) => {
      walked[on]++;
      if (kept) walked.kept++;
    };
    const kept = new Walkers({ threads: 0, from: 0, keptBytes: 1 << 20 }, { onWalk });
    await agreesWithSql(new SearchView(snapshot, null, kept), 23);
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < 15; i++) {
        const id = pick(ids);
        const current = (await findUserRow(ctx.db, id))!;
        const change = pick(['rename', 'phone', 'move', 'department', 'delete', 'add', 'import'] as const);
        if (change === 'add' || change === 'import') await addContact(undefined, change === 'import');
        else if (change === 'delete') await changeDirectory(ctx.db, (trx) => deactivateContacts(trx, [id]));
        else if (current.is_active) {
          const changes =
            change === 'rename' ? { name: text(3) }
            : change === 'phone' ? { phone: `0${Math.floor(random() * 1e4)}` }
            : change === 'department' ? { department_id: pick([null, ...departments]) }
            : { parent_id: pick([null, ...ids.filter((other) => other !== id)]) };
          // a move under its own subtree is refused (400): the directory stays as it was
          await changeDirectory(ctx.db, (trx) => updateContact(trx, current, changes)).catch(() => undefined);
          if ('name' in changes && changes.name) fields.push(changes.name);
          if ('phone' in changes && changes.phone) fields.push(changes.phone);
        }
      }
      // the changes read in two rounds: the second read adds to the first
      await changed.catchUp(ctx.db);
    }
    // namesakes under one parent, each in the gap after the last: the gap runs out, and the
    // rows around are relabelled (tree/gaps.ts makeRoom)
    const crowd = { parent_id: pick((await ctx.db('users').whereIn('id', ids).where({ is_active: true }).pluck('id')).map(Number)), name: text(3) };
    const before = await ctx.db('users').where({ unit_id: unitId }).select('id', 'tree_ord');
    for (let i = 0; i < 24; i++) await addContact(crowd);
    const relabelled = (await ctx.db('users').whereIn('id', before.map((r) => r.id)).select('id', 'tree_ord'))
      .filter((r) => Number(r.tree_ord) !== Number(before.find((b) => b.id === r.id)!.tree_ord));
    expect(relabelled.length).toBeGreaterThan(0);
    await changed.catchUp(ctx.db);
    expect(changed.contacts.size).toBeGreaterThan(10);
    expect(changed.overflowed).toBe(false);
    await agreesWithSql(new SearchView(snapshot, changed), 17);
    const hitsBefore = walked.kept;
    await agreesWithSql(new SearchView(snapshot, changed, kept), 23);
    // the same terms, kept before the changes, answered again
    expect(walked.kept - hitsBefore).toBeGreaterThan(50);
    // the same, each term walked on a walk thread over the snapshot's shared memory, skipping the changed contacts' slots as posted, and kept there
    walked.thread = walked.service = walked.kept = 0;
    const walkers = new Walkers({ threads: 1, from: 0, keptBytes: 1 << 20 }, { onWalk });
    try {
      await agreesWithSql(new SearchView(snapshot, changed, walkers), 19);
      await agreesWithSql(new SearchView(snapshot, changed, walkers), 19);
      expect(walkers.running).toBe(1);
      // every walk was the thread's: none failed over to this one; the second round's were kept
      expect(walked.thread).toBeGreaterThan(0);
      expect(walked.service).toBe(0);
      expect(walked.kept).toBeGreaterThan(walked.thread / 4);
    } finally {
      await walkers.close();
    }
  });
});

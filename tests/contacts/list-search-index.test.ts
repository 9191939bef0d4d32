import fc from 'fast-check';
import { prng } from '../../scripts/demo-data';
import { changeDirectory, insertContact } from '../../src/modules/contacts';
import { searchSet, statisticsOf, type ContactFilters, type RoleFilter } from '../../src/modules/contacts/read/listing.queries';
import { LIST_SEARCH_FIELDS } from '../../src/modules/contacts/search/candidates';
import { SearchSnapshot } from '../../src/modules/contacts/search/snapshot';
import { subtreeRange } from '../../src/modules/contacts/tree/lineage';
import { deactivateContacts } from '../../src/modules/contacts/write/contact.writer';
import { setupOwnTestContext } from '../helpers/context';
import { anyDesignationId, createDepartment, createUnit, unique } from '../helpers/factory';

/**
 * The in-memory index's set for a listing's search (SearchSnapshot.listing) against the SQL
 * one (searchSet), for random terms and filters over a random unit: the same contacts, in the
 * same order, with the same parent and role (what the page and the statistics are made of).
 */

// A database of its own: the snapshot is loaded once, and each case reads its subtree's range
// afresh; on the shared MySQL database another file's insert could relabel this unit's order keys
// in between (a gap used up nearby), and the snapshot's keys would no longer be the range's.
const ctx = setupOwnTestContext('listsearch');

// pieces that share trigrams, fold in surprising ways (Σ, İ) or are LIKE wildcards
const PIECES = ['ab', 'Ab', 'ba', 'qx', 'ΣΟ', 'ος', 'İz', 'x%', '_y', '07', '70', ' '];

describe('SearchSnapshot.listing and listingPage', () => {
  test('give the set that searchSet gives in SQL, and any page of it with its counters, for any term and filters', async () => {
    const random = prng(2026);
    const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)];
    const text = (n: number) => Array.from({ length: n }, () => pick(PIECES)).join('');
    const unit = await createUnit(ctx);
    const departments = [(await createDepartment(ctx, unit.id)).id, (await createDepartment(ctx, unit.id)).id];
    const designationId = await anyDesignationId(ctx);
    const ids: number[] = [];
    const fields: string[] = [];
    for (let i = 0; i < 60; i++) {
      const contact = {
        name: text(3),
        // a valid address: on MySQL the other files' searches see these contacts too
        email: `${pick(['ab', 'ba', 'qx', '07'])}.${unique('e')}@x.test`.toLowerCase(),
        service_no: `${text(1)}${unique('s')}`.slice(0, 50),
        phone: `0${Math.floor(random() * 1e4)}`,
        mobile: random() < 0.5 ? null : text(2),
        unit_id: unit.id,
        department_id: pick([null, ...departments]),
        designation_id: designationId,
        parent_id: ids.length > 0 && random() < 0.7 ? pick(ids) : null,
        role_id: pick([1, 2, 3, 3]),
      };
      ids.push(await changeDirectory(ctx.db, (trx) => insertContact(trx, contact)));
      fields.push(contact.name, contact.email, contact.service_no, contact.phone, contact.mobile ?? '');
    }
    // some deleted (their children become roots), one of them with its subtree
    await changeDirectory(ctx.db, (trx) => deactivateContacts(trx, ids.filter(() => random() < 0.15)));
    const snapshot = await SearchSnapshot.load(ctx.db);

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
        const f: ContactFilters & { search: string } = { search, unit_id: unit.id, department_id: department, role_filter, include_inactive };
        const range = parent === undefined ? undefined : await subtreeRange(ctx.db, parent);
        const inSql = (await searchSet(ctx.db, f, range, LIST_SEARCH_FIELDS)).map((r) => ({ id: r.id, parent_id: r.parent_id, role_id: r.role_id }));
        const inMemory = snapshot.listing(search.toLowerCase(), f, range);
        expect({ search, f, range, ids: inMemory }).toEqual({ search, f, range, ids: inSql });
        const paged = snapshot.listingPage(search.toLowerCase(), f, range, page);
        expect({ search, f, range, page, ...paged }).toEqual({
          search, f, range, page, ids: inSql.slice(page.offset, page.offset + page.limit).map((m) => m.id), statistics: statisticsOf(inSql),
        });
        if (inSql.length > 0) nonEmpty++;
      }),
      { numRuns: 300, seed: 13 },
    );
    // the comparison meant something: many cases matched someone
    expect(nonEmpty).toBeGreaterThan(75);
  });
});

import fc from 'fast-check';
import { contactGramsView, gramPair, gramQueryOf, joinedGramsView } from '../../src/modules/contacts/domain/grams';
import { indexedTextOf, SEPARATOR } from '../../src/modules/contacts/search/matching';
import { buildPostings, postingsOver } from '../../src/modules/contacts/search/postings';

/**
 * The in-memory index's posting lists (postings.ts) against a brute force over the same
 * contacts' grams. They give a search its candidates: for a term of two characters, every
 * contact holding a gram that starts with them; for a longer one, the shortest list among its
 * grams. A walk over candidates (snapshot.ts) counts each one it is given, so a contact given
 * twice would be counted twice, and one left out would be missed.
 *
 * Names over three characters (a, b and a space) make grams shared by many contacts, pairs with
 * one gram and pairs with several.
 */

const name = fc.array(fc.constantFrom('a', 'b', ' '), { maxLength: 7 }).map((cs) => cs.join(''));
const term = (min: number, max: number) => fc.array(fc.constantFrom('a', 'b', ' ', 'A'), { minLength: min, maxLength: max }).map((cs) => cs.join(''));

async function indexOf(names: string[]) {
  const held = names.map((n) => new Set(contactGramsView({ name: n })));
  // each contact's grams given twice, the second time reversed: the build counts each once
  const twice = (slot: number) => {
    const grams = Array.from(contactGramsView({ name: names[slot] }));
    return [...grams, ...grams.reverse()];
  };
  return { postings: postingsOver(await buildPostings(names.length, twice)), held };
}

const slotsWhere = (held: Array<Set<number>>, holds: (grams: Set<number>) => boolean) => held.flatMap((grams, slot) => (holds(grams) ? [slot] : []));

describe('the search index posting lists', () => {
  test('a two-character term: each contact holding a gram that starts with it, once, in number order', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(name, { minLength: 1, maxLength: 40 }), term(2, 2), async (names, pairTerm) => {
        const { postings, held } = await indexOf(names);
        const q = gramQueryOf(pairTerm);
        if (q.kind !== 'prefix') throw new Error('a two-character term is a prefix query');
        const pair = gramPair(q.from);
        const expected = slotsWhere(held, (grams) => [...grams].some((g) => gramPair(g) === pair));
        expect(Array.from(postings.startingWith(pair, names.length))).toEqual(expected);
      }),
      { numRuns: 300 },
    );
  });

  test('a longer term: the contacts of its shortest list that the lists not much longer hold too; all of them with lists of like lengths; none when a gram indexes nobody', async () => {
    let exact = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(name, { minLength: 1, maxLength: 40 }), term(3, 6), async (names, longer) => {
        const { postings, held } = await indexOf(names);
        const q = gramQueryOf(longer);
        if (q.kind !== 'all') throw new Error('a term of three or more characters needs all its grams');
        const lists = q.grams.map((g) => slotsWhere(held, (grams) => grams.has(g)));
        const shortest = Math.min(...lists.map((l) => l.length));
        const all = slotsWhere(held, (grams) => q.grams.every((g) => grams.has(g)));
        const got = Array.from(postings.holdingAll(q.grams));
        // ascending, each once, within a shortest list, and every contact holding all the grams
        expect(got).toEqual([...new Set(got)].sort((a, b) => a - b));
        expect(lists.filter((l) => l.length === shortest).some((l) => got.every((slot) => l.includes(slot)))).toBe(true);
        expect(all.every((slot) => got.includes(slot))).toBe(true);
        // when no list is more than 4 times as long as the contacts holding them all, each is walked
        if (all.length > 0 && lists.every((l) => l.length <= 4 * all.length)) {
          exact++;
          expect(got).toEqual(all);
        }
      }),
      // a fixed seed: how many of 300 random cases have lists of like lengths varies with the
      // seed (27 in one CI run), and the bound below says the exact branch was exercised
      { numRuns: 300, seed: 2026 },
    );
    expect(exact).toBeGreaterThan(30);
  });

  test('lists whose gaps take one to five bytes decode to the same numbers (contacts far apart, most holding no gram)', async () => {
    // the gaps between the holders of a gram are stored as varints: 127 fits in one byte, 128
    // takes two, 16,383 two, 16,384 three; the contacts here sit at such distances
    const holders = [0, 1, 128, 129, 256, 16_640, 16_641, 33_024, 2_130_000];
    const want = new Set(holders);
    const gram = contactGramsView({ name: 'abc' })[0];
    const postings = postingsOver(await buildPostings(holders[holders.length - 1] + 1, (slot) => (want.has(slot) ? [gram] : [])));
    expect(Array.from(postings.holdingAll([gram]))).toEqual(holders);
    expect(Array.from(postings.startingWith(gramPair(gram), holders[holders.length - 1] + 1))).toEqual(holders);
  });

  test("a contact's grams read from its index text are those of its fields (the index builds its lists from the texts)", () => {
    // fields of letters of several scripts and cases, digits, '@', '.', '+', spaces, a letter
    // outside the BMP, empty or missing fields; none holds the separator, which no field does
    const field = fc.oneof(fc.constant(null), fc.array(fc.constantFrom('a', 'B', 'ß', 'İ', 'ক', 'ঁ', '1', '@', '.', '+', ' ', '𝒜'), { maxLength: 9 }).map((cs) => cs.join('')));
    fc.assert(
      fc.property(fc.record({ name: field, email: field, service_no: field, phone: field, mobile: field }), (fields) => {
        const fromFields = Array.from(contactGramsView(fields));
        const joined = new Set(joinedGramsView(indexedTextOf(fields).text, SEPARATOR));
        expect([...joined].sort((a, b) => a - b)).toEqual(fromFields);
      }),
      { numRuns: 500 },
    );
  });

  test('grams past the first table of 32,768 (the build grows its table of gram ids), up to 51 bits, each find their own contacts', async () => {
    // contact n holds a gram of its own (spread over the 51 bits a gram can take) and one shared by all
    const contacts = 100_000;
    const own = (n: number) => (n * 22_517_998_136) % 2 ** 51;
    const shared = 2 ** 51 - 1;
    const postings = postingsOver(await buildPostings(contacts, (n) => [own(n), shared]));
    for (const n of [0, 1, 32_767, 32_768, 65_535, 99_999]) expect(Array.from(postings.holdingAll([own(n), shared]))).toEqual([n]);
    expect(postings.holdingAll([shared])).toHaveLength(contacts);
    expect(postings.holdingAll([own(5), 12_345])).toHaveLength(0);
  });
});

import fc from 'fast-check';
import { bytesInclude, fieldsOfBytes, indexedTextOf, listedMatch, searchRank, termBytes, textRank } from '../../src/modules/contacts/search/matching';

/**
 * The snapshot's texts are UTF-8 bytes, one after another in one buffer (search/columns.ts),
 * while the contacts changed since its build keep theirs as strings (search/overlay.ts): a
 * contact must match and rank alike either way. These properties hold the tests on bytes
 * (matching.ts bytesInclude, textRank, fieldsOfBytes) to the tests on strings (includes,
 * listedMatch, searchRank), over fields of several scripts, cases and widths, with each text
 * placed at every offset of a word (bytesInclude reads four bytes at a time) among other texts.
 */

const chars = ['a', 'b', 'A', 'ß', 'İ', 'é', 'ক', 'া', '𝒜', '1', '@', '.', ' ', '+'];
const field = fc.array(fc.constantFrom(...chars), { maxLength: 8 }).map((cs) => cs.join(''));
const fields = fc.record({ name: field, email: field, service_no: field, phone: field, mobile: field });
const term = fc.array(fc.constantFrom(...chars), { minLength: 2, maxLength: 5 }).map((cs) => cs.join('').toLowerCase());

/** The texts of `contacts` in one buffer as the snapshot lays them out, padded to a whole word, with a word view. */
function layout(texts: string[], lead: number) {
  const sizes = texts.map((t) => Buffer.byteLength(t));
  const size = lead + sizes.reduce((a, b) => a + b, 0);
  const memory = new ArrayBuffer(4 * Math.floor(size / 4) + 4);
  const bytes = Buffer.from(memory);
  const starts = [lead];
  texts.forEach((t, i) => starts.push(starts[i] + bytes.write(t, starts[i])));
  return { bytes, words: new Uint32Array(memory), starts };
}

describe('the snapshot texts as UTF-8 bytes', () => {
  test('a term lies in a text, and in its listed fields, as the string tests say; it ranks as searchRank ranks it', () => {
    const ranks = new Set<number>();
    fc.assert(
      fc.property(fc.array(fields, { minLength: 1, maxLength: 4 }), fc.integer({ min: 0, max: 3 }), term, fc.option(fc.record({ k: fc.integer({ min: 0, max: 4 }), whole: fc.boolean() })), (contacts, lead, needle, from) => {
        const indexed = contacts.map(indexedTextOf);
        // most terms are taken from a field of the first text, whole (an exact service number or
        // e-mail) or its start, in whole code points (a request's term is UTF-8, which holds no
        // half of one), so that matches and each rank are common
        const f0 = from && indexed[0].text.split('\u0000')[from.k];
        const t = from ? (from.whole ? f0! : Array.from(f0!).slice(0, Array.from(needle).length).join('')) : needle;
        if (Array.from(t).length < 2) return;
        const { bytes, words, starts } = layout(
          indexed.map((x) => x.text),
          lead,
        );
        const tb = termBytes(t);
        indexed.forEach((x, i) => {
          const [start, end] = [starts[i], starts[i + 1]];
          const f = fieldsOfBytes(bytes, start, end);
          expect(bytesInclude(bytes, words, start, end, tb)).toBe(x.text.includes(t));
          expect(bytesInclude(bytes, words, start, start + f.listedEnd, tb)).toBe(listedMatch(x.text, x.listedEnd, t));
          if (x.text.includes(t)) {
            ranks.add(searchRank(x.text, x.serviceNo, x.email, t));
            const lower = x.email === x.email.toLowerCase();
            expect(textRank(bytes, start, f, lower, tb)).toBe(searchRank(x.text, x.serviceNo, x.email, t));
          }
        });
      }),
      { numRuns: 3000 },
    );
    // each rank came up
    expect([...ranks].sort()).toEqual([0, 1, 2]);
  });
});

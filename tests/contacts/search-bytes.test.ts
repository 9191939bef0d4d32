import fc from 'fast-check';
import { byteCountsOf, bytesInclude, fieldsOfBytes, indexedTextOf, listedMatch, rarestByte, searchRank, termBytes, textRank } from '../../src/modules/contacts/search/matching';

/**
 * The snapshot's texts are UTF-8 bytes, one after another in one buffer (search/columns.ts),
 * while the contacts changed since its build keep theirs as strings (search/overlay.ts): a
 * contact must match and rank alike either way. These properties hold the tests on bytes
 * (matching.ts bytesInclude, textRank, fieldsOfBytes) to the tests on strings (includes,
 * listedMatch, searchRank), over fields of several scripts, cases and widths, with each text
 * placed at every offset of a word (bytesInclude reads four bytes at a time) among other texts,
 * and each of the term's bytes as the one bytesInclude scans for (its anchor): a lead byte or a
 * continuation byte of a character, at the term's start, middle or end.
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
          for (let anchor = 0; anchor < tb.length; anchor++) {
            expect(bytesInclude(bytes, words, start, end, tb, anchor)).toBe(x.text.includes(t));
            expect(bytesInclude(bytes, words, start, start + f.listedEnd, tb, anchor)).toBe(listedMatch(x.text, x.listedEnd, t));
          }
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

  test("a term's anchor is its rarest byte in the texts, the first of the rarest on a tie; a large buffer's counts come from a sample spread over it", () => {
    const counts = byteCountsOf(Buffer.from('aaaabbbc'), new Uint32Array(256));
    expect([counts[0x61], counts[0x62], counts[0x63], counts[0x64]]).toEqual([4, 3, 1, 0]);
    expect(rarestByte(termBytes('abc'), counts)).toBe(2);
    expect(rarestByte(termBytes('bab'), counts)).toBe(0);
    expect(rarestByte(termBytes('abd'), counts)).toBe(2);
    // 3 MB: every third byte is counted, wherever the bytes lie
    const big = Buffer.alloc(3_000_000, 'a');
    big.fill('b', 2_000_000);
    const sampled = byteCountsOf(big, new Uint32Array(256));
    expect(sampled[0x61]).toBe(666_667);
    expect(sampled[0x62]).toBe(333_333);
  });
});

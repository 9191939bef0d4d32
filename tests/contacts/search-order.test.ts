import fc from 'fast-check';
import { firstInOrder } from '../../src/modules/contacts/search/order';

/** firstInOrder, which keeps a listing's first places among its matches, against a whole sort. */
describe('the first k of distinct places, ascending', () => {
  test('are the first k of the sorted values, for any k, values and bound', () => {
    const cases = fc
      .tuple(fc.integer({ min: 1, max: 2 ** 31 - 1 }), fc.nat(300), fc.nat(400))
      .chain(([bound, count, k]) =>
        fc.tuple(fc.uniqueArray(fc.nat(bound - 1), { maxLength: Math.min(count, bound) }), fc.constant(k), fc.constant(bound)),
      );
    fc.assert(
      fc.property(cases, ([values, k, bound]) => {
        const sorted = [...values].sort((a, b) => a - b);
        expect(Array.from(firstInOrder(Int32Array.from(values), k, bound))).toEqual(sorted.slice(0, k));
      }),
      { numRuns: 2000 },
    );
  });

  test('are found when the values crowd one bucket of a wide bound', () => {
    // 10,000 values in the lowest 1/1000 of the range: one bucket, which is kept and sorted whole
    const values = Int32Array.from({ length: 10_000 }, (_, i) => (i * 7919) % 10_007);
    expect(Array.from(firstInOrder(values.slice(), 5, 10_000_000))).toEqual([0, 1, 2, 3, 4]);
    expect(firstInOrder(values.slice(), 0, 10_000_000)).toHaveLength(0);
  });
});

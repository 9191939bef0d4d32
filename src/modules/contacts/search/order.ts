/**
 * The `k` smallest of `values`, ascending: all of them, sorted in place, when `k` reaches their
 * count. The values are distinct whole numbers in [0, `bound`) (places in the directory's
 * pre-order). A listing's page needs only the first places of its matches, some 13,000 for a
 * term at a million contacts, and a sort of all of them took a sixth of the listing's walk.
 *
 * One pass counts the values in up to 1,024 buckets by their high bits; the `k` smallest lie in
 * the buckets up to the one where the count reaches `k`, and only those are sorted: O(n + m log
 * m) for the m values kept, with no worst case. Written here rather than taken from npm: the
 * well-kept quickselect package is ESM only, takes a comparator per element, and reorders the
 * whole array, where this keeps a few hundred of its numbers.
 */
export function firstInOrder(values: Int32Array, k: number, bound: number): Int32Array {
  if (k >= values.length) return values.sort();
  const shift = Math.max(0, 32 - Math.clz32(Math.max(bound - 1, 1)) - 10);
  const buckets = new Int32Array((Math.max(bound - 1, 0) >>> shift) + 1);
  for (let i = 0; i < values.length; i++) buckets[values[i] >>> shift]++;
  let cut = 0;
  let below = 0;
  while (below + buckets[cut] < k) below += buckets[cut++];
  const kept = new Int32Array(below + buckets[cut]);
  for (let i = 0, n = 0; i < values.length; i++) if (values[i] >>> shift <= cut) kept[n++] = values[i];
  return kept.sort().subarray(0, k);
}

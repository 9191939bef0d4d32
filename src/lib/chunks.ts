/** `items` in consecutive slices of at most `size` (statements with a bounded number of bindings). */
export function chunks<T>(items: readonly T[], size = 500): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** Orders strings by Unicode code point, as both databases compare binary-collated text. */
export function compareCodePoints(a: string, b: string): number {
  const ia = a[Symbol.iterator]();
  const ib = b[Symbol.iterator]();
  for (;;) {
    const ca = ia.next();
    const cb = ib.next();
    if (ca.done || cb.done) return ca.done && cb.done ? 0 : ca.done ? -1 : 1;
    const diff = ca.value.codePointAt(0)! - cb.value.codePointAt(0)!;
    if (diff !== 0) return diff;
  }
}

/** The word with its first letter in upper case: `units` -> `Units` (for messages built from names). */
export function capitalized(word: string): string {
  return word[0].toUpperCase() + word.slice(1);
}

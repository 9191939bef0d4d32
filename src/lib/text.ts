/** Orders strings by Unicode code point, as both databases compare binary-collated text. */
export function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) {
      // a surrogate (U+D800-U+DFFF) is half of a code point above U+FFFF, which sorts after every
      // other; two surrogates at the first difference compare like the code points they make
      const sx = x >= 0xd800 && x <= 0xdfff;
      const sy = y >= 0xd800 && y <= 0xdfff;
      if (sx !== sy) return sx ? 1 : -1;
      return x - y;
    }
  }
  return a.length - b.length;
}

/** The word with its first letter in upper case: `units` -> `Units` (for messages built from names). */
export function capitalized(word: string): string {
  return word[0].toUpperCase() + word.slice(1);
}

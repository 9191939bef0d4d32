/**
 * Deterministic generators for the demo directory: a seeded PRNG, names, and the shape of
 * each unit's tree (deep spines, very wide nodes, and a bushy rest).
 */

/** mulberry32: small, fast, and the same numbers for the same seed on every machine. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const pick = <T>(random: () => number, items: readonly T[]): T => items[Math.floor(random() * items.length)];

const FIRST_NAMES = [
  'Abdul', 'Abu', 'Afsana', 'Aminul', 'Anika', 'Anisur', 'Arif', 'Asif', 'Ayesha', 'Farhana', 'Farida', 'Fatema',
  'Habibur', 'Hasan', 'Humayun', 'Imran', 'Ishrat', 'Jahangir', 'Jannatul', 'Kamal', 'Karim', 'Khadija', 'Mahbub',
  'Mahmud', 'Masud', 'Mehedi', 'Mizanur', 'Mohammad', 'Monir', 'Mostafa', 'Nadia', 'Nasrin', 'Nazmul', 'Nusrat',
  'Rafiq', 'Rahim', 'Rashed', 'Rezaul', 'Rokeya', 'Rubina', 'Saiful', 'Sajid', 'Salma', 'Shafiq', 'Shahana',
  'Shahidul', 'Sharmin', 'Shirin', 'Sohel', 'Sultana', 'Tahmina', 'Tanvir', 'Tariq', 'Touhid', 'Zahid', 'Zakir',
];
const MIDDLE_NAMES = ['', '', '', 'Al', 'Md.', 'Nur', 'Abdur', 'Ul', 'Mohammad', 'Sheikh'];
const LAST_NAMES = [
  'Ahmed', 'Akter', 'Alam', 'Ali', 'Begum', 'Bhuiyan', 'Biswas', 'Chowdhury', 'Das', 'Haque', 'Hossain', 'Howlader',
  'Islam', 'Kabir', 'Khan', 'Mahmud', 'Majumder', 'Mia', 'Mollah', 'Mondal', 'Patwary', 'Rahman', 'Rana', 'Roy',
  'Sarkar', 'Sheikh', 'Siddique', 'Sikder', 'Talukder', 'Uddin',
];

export function personName(random: () => number): string {
  const middle = pick(random, MIDDLE_NAMES);
  return [pick(random, FIRST_NAMES), middle, pick(random, LAST_NAMES)].filter(Boolean).join(' ');
}

export function phoneNumber(random: () => number): string {
  const operator = pick(random, ['013', '014', '015', '016', '017', '018', '019']);
  return operator + String(Math.floor(random() * 1e8)).padStart(8, '0');
}

/**
 * Parents for `size` contacts of one unit (index -> parent index, or -1 for a root), in an
 * order where every parent comes before its children. The shape: a few roots, a spine
 * `depth` levels deep under the first root, one very wide node (`wide` direct children),
 * and the rest attached at random to earlier contacts near the top, which makes a bushy tree.
 */
export function treeShape(random: () => number, size: number, depth: number, wide: number): Int32Array {
  const parents = new Int32Array(size).fill(-1);
  const roots = Math.max(1, Math.min(3, Math.floor(size / 500)));
  let next = roots;
  // the spine: root 0 > 1 > 2 > ... `depth` levels
  let previous = 0;
  for (let level = 1; level < depth && next < size; level++) {
    parents[next] = previous;
    previous = next++;
  }
  // the wide node: the second contact of the spine (or the root) gets `wide` children
  const hub = size > 1 && depth > 1 ? roots : 0;
  for (let i = 0; i < wide && next < size; i++) parents[next++] = hub;
  // the rest: attached to a random earlier contact, biased to the first ones (managers)
  for (; next < size; next++) {
    const r = random();
    parents[next] = Math.floor(r * r * r * next);
  }
  return parents;
}

import { streamRows, type Db } from '../../../lib/db';
import { directoryVersions } from '../data/tree/lock';
import { indexedRows } from '../data/index.queries';
import { joinedGramsView, type SearchableFields } from '../domain/grams';
import { compareCodePoints } from '../../../lib/text';
import { Growable, GrowableTexts } from './growable';
import { byteCountsOf, fieldsOfBytes, indexedTextOf, SEPARATOR } from './matching';
import { breather, buildPostings, type PostingsData } from './postings';
import { sharedArray, sharedLike } from './shared-arrays';
import { SearchSnapshot } from './snapshot';
import type { Columns } from './snapshot-data';

let serials = 0;

/**
 * A snapshot of the directory (snapshot.ts): reads the directory's versions, then all its
 * contacts (inactive ones too, for the listings' include_inactive). The contacts are at least as
 * new as the versions (a change committed in between only makes them newer), whatever the
 * isolation level, and no transaction is held open while they are read.
 */
export async function loadSnapshot(db: Db): Promise<SearchSnapshot> {
  const { versions, columns, postings } = await readColumns(db);
  return new SearchSnapshot({ serial: ++serials, version: versions.search_version, treeVersion: versions.version, columns, postings });
}

/** The versions, the columns and the postings of a snapshot (loadSnapshot). */
async function readColumns(db: Db): Promise<{ versions: { version: number; search_version: number }; columns: Columns; postings: PostingsData }> {
  const versions = await directoryVersions(db);
  const texts = new GrowableTexts();
  const names: string[] = [];
  const int = () => new Growable((n) => new Int32Array(n));
  const byte = () => new Growable((n) => new Uint8Array(n));
  const built = { ids: int(), emailCased: byte(), unit: int(), department: int(), role: int(), parent: int(), active: byte() };
  const ords = new Growable((n) => new Float64Array(n));
  // in the table's order, each row numbered as it comes and not kept (streamRows: streamed on
  // MySQL, one read on SQLite, so that its only connection is not held for the build); put in
  // name order below. One statement: the tree columns are one consistent state of the tree.
  for await (const row of streamRows(db, indexedRows(db))) {
    const n = built.ids.length;
    built.ids.push(Number(row.id));
    const t = indexedTextOf(row as SearchableFields);
    texts.push(t.text);
    names.push(t.sortName);
    built.emailCased.push(t.email === t.email.toLowerCase() ? 0 : 1);
    built.unit.push(Number(row.unit_id));
    built.department.push(row.department_id === null ? 0 : Number(row.department_id));
    built.role.push(Number(row.role_id));
    built.parent.push(row.parent_id === null ? 0 : Number(row.parent_id));
    ords.push(Number(row.tree_ord));
    built.active.push(Number(row.is_active) ? 1 : 0);
    await breather(n);
  }
  // the slots: the contacts in name order (sort_name, compared by code point as the database
  // compares its bytes, then id), so that each posting list, and each walk, is in that order
  const readIds = built.ids.finish();
  const order = nameOrder(names, readIds);
  names.length = 0;
  const ids = inOrder(readIds, order);
  const treeOrds = inOrder(ords.finish(), order);
  // the pre-order once per build, so that a listing sorts its matches as integers
  const byRank = sharedArray(Int32Array, ids.length);
  for (let slot = 0; slot < ids.length; slot++) byRank[slot] = slot;
  byRank.sort((a, b) => treeOrds[a] - treeOrds[b] || ids[a] - ids[b]);
  const ranks = sharedArray(Int32Array, ids.length);
  byRank.forEach((slot, rank) => {
    ranks[slot] = rank;
  });
  const { bytes, words, starts, byteCounts, listedEnds, fieldStarts } = await encodeTexts(texts, order);
  const columns: Columns = {
    ids,
    texts: { bytes, words, starts, byteCounts },
    listedEnds,
    emailCased: inOrder(built.emailCased.finish(), order),
    fieldStarts,
    unitIds: inOrder(built.unit.finish(), order),
    departmentIds: inOrder(built.department.finish(), order),
    roleIds: inOrder(built.role.finish(), order),
    parentIds: inOrder(built.parent.finish(), order),
    treeOrds,
    ranks,
    byRank,
    byId: slotsOf(order),
    active: inOrder(built.active.finish(), order),
  };
  // the posting lists from the texts, in slot order (the grams of a text are its fields')
  const postings = await buildPostings(ids.length, (slot) => joinedGramsView(bytes.toString('utf8', starts[slot], starts[slot + 1]), SEPARATOR));
  return { versions, columns, postings };
}

/**
 * The texts read (`texts`, by row) in slot order (`order` gives the row at each slot), and
 * where the fields of each start and its listed ones end.
 */
async function encodeTexts(texts: GrowableTexts, order: Int32Array) {
  const size = texts.bytes;
  const read = texts.finish();
  const memory = new SharedArrayBuffer(4 * Math.floor(size / 4) + 4);
  const bytes = Buffer.from(memory);
  const starts = sharedArray(Uint32Array, order.length + 1);
  const listedEnds = sharedArray(Uint16Array, order.length);
  const fieldStarts = sharedArray(Uint16Array, 3 * order.length);
  for (let slot = 0; slot < order.length; slot++) {
    const start = starts[slot];
    const end = start + read.copyTo(order[slot], bytes, start);
    starts[slot + 1] = end;
    const fields = fieldsOfBytes(bytes, start, end);
    listedEnds[slot] = fields.listedEnd;
    fieldStarts[3 * slot] = fields.email;
    fieldStarts[3 * slot + 1] = fields.service;
    fieldStarts[3 * slot + 2] = fields.phone;
    await breather(slot);
  }
  return { bytes, words: new Uint32Array(memory), starts, byteCounts: byteCountsOf(bytes.subarray(0, starts[order.length]), sharedArray(Uint32Array, 256)), listedEnds, fieldStarts };
}

/**
 * The row numbers sorted by name (by code point, as the database compares its bytes), then id.
 * Names of code units below U+D800 only, nearly all, compare natively: JavaScript compares
 * strings by code unit, which is code-point order for them.
 */
function nameOrder(names: string[], ids: Int32Array): Int32Array {
  const plain = Uint8Array.from(names, (name) => (/[\ud800-\uffff]/.test(name) ? 0 : 1));
  return Int32Array.from(ids.keys()).sort((a, b) => {
    const x = names[a];
    const y = names[b];
    if (x === y) return ids[a] - ids[b];
    if (plain[a] & plain[b]) return x < y ? -1 : 1;
    return compareCodePoints(x, y) || ids[a] - ids[b];
  });
}

/** The slot of each row read, in the order read: by id, since the rows come in id order (indexedRows). */
function slotsOf(order: Int32Array): Int32Array {
  const slots = sharedArray(Int32Array, order.length);
  for (let slot = 0; slot < order.length; slot++) slots[order[slot]] = slot;
  return slots;
}

/** A column read in the table's order, by slot, in shared memory: `order` gives the row at each slot (`width` entries a row). */
function inOrder<A extends Int32Array | Uint8Array | Uint16Array | Float64Array>(read: A, order: Int32Array, width = 1): A {
  const out = sharedLike(read);
  for (let slot = 0; slot < order.length; slot++) {
    for (let k = 0; k < width; k++) out[slot * width + k] = read[order[slot] * width + k];
  }
  return out;
}

import type { PostingsData } from './postings';

/**
 * One entry per contact, by slot (name order), in typed arrays: at a million contacts every byte
 * a contact holds is a megabyte (docs/performance.md, "The search index's memory"). Ids fit in
 * 32 bits; order keys do not. Each array is in shared memory (shared-arrays.ts), so that the walk
 * threads read it where it is.
 */
export interface Columns {
  ids: Int32Array;
  /** the lower-cased fields joined by SEPARATOR, the name first (matching.ts IndexedText), as UTF-8 */
  texts: SnapshotTexts;
  /** where the listed fields of each text end, from its start */
  listedEnds: Uint16Array;
  /** 1: the stored e-mail has capitals, so no lower-cased term equals it (matching.ts textRank) */
  emailCased: Uint8Array;
  /** where each text's e-mail, service number and phone start, from its start, three a slot (matching.ts fieldsOfBytes) */
  fieldStarts: Uint16Array;
  unitIds: Int32Array;
  /** 0: no department */
  departmentIds: Int32Array;
  roleIds: Int32Array;
  /** 0: a root */
  parentIds: Int32Array;
  treeOrds: Float64Array;
  /** each slot's place in the directory's pre-order (tree_ord, then id), and the slot at each place */
  ranks: Int32Array;
  byRank: Int32Array;
  /** the slots in id order, to find a contact's slot (slotOf) */
  byId: Int32Array;
  /** 1: active */
  active: Uint8Array;
}

/**
 * The texts of all slots, one after another in slot order (matching.ts termBytes): slot n's in
 * `bytes[starts[n], starts[n + 1])`. `words` views the same memory 4 bytes at a time, to its
 * end (matching.ts bytesInclude), so the bytes are padded to a whole word past the last text.
 * The offsets are 32-bit: 4 GiB of texts, some 40 million contacts.
 */
export interface SnapshotTexts {
  bytes: Buffer;
  words: Uint32Array;
  starts: Uint32Array;
  /** how often each byte value comes up in `bytes` (matching.ts byteCountsOf): a term's rarest byte is the one a walk scans for */
  byteCounts: Uint32Array;
}

/**
 * What a snapshot is made of (columns.ts loadSnapshot), all of it in shared memory
 * (shared-arrays.ts): what a walk thread is handed to answer over the same snapshot (walkers.ts).
 */
export interface SnapshotData {
  /** a number of its own in this process, to tell snapshots apart */
  serial: number;
  version: number;
  treeVersion: number;
  columns: Columns;
  postings: PostingsData;
}

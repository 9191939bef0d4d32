import type { TimeSlices } from '../../lib/yield';
import { IndexSet } from './index-set';
import { SpillFile } from './spill-file';

/**
 * The rows a file keeps until the import has read them (import.rows.ts), held compactly: the
 * cells of the columns the import reads, as UTF-8 in blocks of 1 MiB, and each row's number and
 * place in typed arrays. V8 spends 24 to 56 bytes on each string, object and array slot: 100,000
 * rows of 13 short cells took 53 MiB as objects holding arrays of strings, and take 13 MB so.
 * `size` is what the rows hold, which the .xlsx reader bounds (xlsx-sheet.ts).
 */

const BLOCK = 1024 * 1024;
/** Between two cells of a row: a character neither a CSV (refused with a NUL) nor an XML 1.0 text can hold. */
const CELL_END = '\u0000';
/** Before the index of a shared string a row refers to (only an .xlsx's: XML 1.0 cannot hold it). */
const SHARED = '\u0001';

/**
 * The first SPILL_AFTER bytes of an import's rows stay in memory; past them the rows go to a
 * temporary file (spill-file.ts), one block kept in memory: 100,000 rows of every column take
 * some 13 MiB here, which the service's memory held for the whole import (docs/performance.md,
 * "An import's memory"). A small file is never written to disk.
 */
const SPILL_AFTER = 4 * BLOCK;

/** Texts written one after another into blocks of 1 MiB, each read back by where it starts and its size. */
class TextBlocks {
  /** the blocks held in memory: every block, or once spilled only the last (block number `first`) */
  private blocks: Buffer[] = [];
  /** the bytes used of each block in `blocks` */
  private ends: number[] = [];
  private first = 0;
  private spill: SpillFile | null = null;

  /** Writes `text` of `bytes` (at most a block), giving where it starts. */
  write(text: string, bytes: number): number {
    if (bytes === 0) return 0;
    if (this.blocks.length === 0 || this.ends[this.blocks.length - 1] + bytes > BLOCK) this.nextBlock();
    const last = this.blocks.length - 1;
    const used = this.ends[last];
    this.blocks[last].write(text, used, 'utf8');
    this.ends[last] = used + bytes;
    return (this.first + last) * BLOCK + used;
  }

  read(at: number, bytes: number): string {
    if (bytes === 0) return '';
    const block = Math.floor(at / BLOCK);
    if (block < this.first) return this.spill!.read(at, bytes);
    const start = at % BLOCK;
    return this.blocks[block - this.first].toString('utf8', start, start + bytes);
  }

  /** Closes the spill file, if there is one: the rows are not read after this. */
  close(): void {
    this.spill?.close();
  }

  /** A new last block: a new buffer until SPILL_AFTER, then the blocks held are written to the spill file and the last one's buffer serves again. */
  private nextBlock(): void {
    const count = this.first + this.blocks.length;
    if (count * BLOCK < SPILL_AFTER) {
      this.blocks.push(Buffer.allocUnsafeSlow(BLOCK));
      this.ends.push(0);
      return;
    }
    this.spill ??= SpillFile.open();
    this.blocks.forEach((block, i) => this.spill!.write(block, this.ends[i], (this.first + i) * BLOCK));
    this.blocks = [this.blocks[this.blocks.length - 1]];
    this.ends = [0];
    this.first = count;
  }
}

/** Numbers appended one by one, in a typed array that doubles as it fills. */
class Numbers<T extends Uint32Array | Uint16Array> {
  length = 0;
  constructor(private data: T) {}

  push(value: number): void {
    if (this.length === this.data.length) {
      const grown = new (this.data.constructor as new (n: number) => T)(this.data.length * 2);
      grown.set(this.data);
      this.data = grown;
    }
    this.data[this.length++] = value;
  }

  get(i: number): number {
    return this.data[i];
  }

  set(i: number, value: number): void {
    this.data[i] = value;
  }

  /** The numbers pushed, as a typed array of their own length. */
  values(): T {
    return this.data.subarray(0, this.length) as T;
  }
}

/** A kept cell as a row is added: its text, or the index of the shared string it is (read later: sharedText). */
export type KeptCell = string | { shared: number };

/** The kept cells of every row of a file, `width` a row (the header places kept). */
export class KeptRows {
  private readonly numbers = new Numbers(new Uint32Array(1024));
  private readonly at = new Numbers(new Uint32Array(1024));
  private readonly bytes = new Numbers(new Uint32Array(1024));
  /** a row's kept cells held as numbers (a workbook's), as bits by slot: 13 columns, 14 with the password */
  private readonly numberSlots = new Numbers(new Uint16Array(1024));
  private texts = new TextBlocks();
  /** the shared strings the rows refer to, and where each one's text is once read (by rank in the set) */
  shared: IndexSet;
  private sharedAt?: Uint32Array;
  private sharedBytes?: Uint16Array;
  /** the bytes the rows hold in `texts` */
  size = 0;

  constructor(
    readonly width: number,
    sharedStrings = 0,
  ) {
    if (width > 16) throw new Error(`${width} kept cells a row`); // the 13 columns and the password at most
    this.shared = new IndexSet(sharedStrings);
  }

  get length(): number {
    return this.numbers.length;
  }

  /** Adds a row of `width` cells; `numberSlots`: which of them a workbook holds as numbers, as bits. */
  add(row: number, cells: readonly KeptCell[], numberSlots = 0): void {
    const text = cells.map((c) => (typeof c === 'string' ? c : this.refer(c.shared))).join(CELL_END);
    const bytes = Buffer.byteLength(text);
    if (bytes > BLOCK) throw new Error(`a row of ${bytes} bytes`); // 16 cells of MAX_CELL_CHARS at most: 48 KB
    this.numbers.push(row);
    this.at.push(this.texts.write(text, bytes));
    this.bytes.push(bytes);
    this.numberSlots.push(numberSlots);
    this.size += bytes;
  }

  private refer(index: number): string {
    this.shared.add(index);
    return `${SHARED}${index}`;
  }

  /** The text of the shared string of rank `rank` in `shared`, once the rows are all added. */
  sharedText(rank: number, text: string): void {
    this.sharedAt ??= new Uint32Array(this.shared.size);
    this.sharedBytes ??= new Uint16Array(this.shared.size);
    const bytes = Buffer.byteLength(text); // MAX_CELL_CHARS at most: 3,000 bytes
    this.sharedBytes[rank] = bytes;
    this.sharedAt[rank] = this.texts.write(text, bytes);
    this.size += bytes + 6;
  }

  /**
   * Writes each row again with the texts of the shared strings it refers to in place of the
   * references, once those texts are all added (sharedText), and lets go of them: a row is then
   * read as one text, as a CSV's is. Read through references, the rows of a 100,000-row workbook
   * were some 12 million reads of their texts in an import, where most of them lie on disk.
   */
  async inlineShared(slices: TimeSlices): Promise<void> {
    if (this.shared.size === 0) return;
    const texts = new TextBlocks();
    const at = new Uint32Array(this.length);
    const sizes = new Uint32Array(this.length);
    try {
      for (let i = 0; i < this.length; i++) {
        const text = this.cellsOf(i).join(CELL_END);
        sizes[i] = Buffer.byteLength(text);
        at[i] = texts.write(text, sizes[i]);
        if (slices.due()) await slices.pause();
      }
    } catch (err) {
      texts.close();
      throw err;
    }
    this.size = 0;
    for (let i = 0; i < this.length; i++) {
      this.at.set(i, at[i]);
      this.bytes.set(i, sizes[i]);
      this.size += sizes[i];
    }
    this.texts.close();
    this.texts = texts;
    this.shared = new IndexSet(0);
    this.sharedAt = undefined;
    this.sharedBytes = undefined;
  }

  /** Lets go of the rows' temporary file, if they have one: read no row after this. */
  close(): void {
    this.texts.close();
  }

  /** Each row's number in the file. */
  rowNumbers(): Uint32Array {
    return this.numbers.values();
  }

  /** Row i's kept cells, in the order of the places kept. */
  cellsOf(i: number): string[] {
    if (this.width === 0) return [];
    const cells = this.texts.read(this.at.get(i), this.bytes.get(i)).split(CELL_END);
    if (this.shared.size === 0) return cells; // a CSV's cell may start with SHARED: it is its text
    for (let c = 0; c < cells.length; c++) {
      if (!cells[c].startsWith(SHARED)) continue;
      const rank = this.shared.rank(Number(cells[c].slice(1)));
      cells[c] = this.texts.read(this.sharedAt![rank], this.sharedBytes![rank]);
    }
    return cells;
  }

  /** The slots of row i's kept cells a workbook holds as numbers. */
  numberSlotsOf(i: number): number[] {
    const slots: number[] = [];
    for (let bits = this.numberSlots.get(i), slot = 0; bits !== 0; bits >>>= 1, slot++) if (bits & 1) slots.push(slot);
    return slots;
  }
}

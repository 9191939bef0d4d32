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

/** Texts written one after another into blocks of 1 MiB, each read back by where it starts and its size. */
class TextBlocks {
  private readonly blocks: Buffer[] = [];
  private used = BLOCK;

  /** Writes `text` of `bytes` (at most a block), giving where it starts. */
  write(text: string, bytes: number): number {
    if (bytes === 0) return 0;
    if (this.used + bytes > BLOCK) {
      this.blocks.push(Buffer.allocUnsafeSlow(BLOCK));
      this.used = 0;
    }
    const at = (this.blocks.length - 1) * BLOCK + this.used;
    this.blocks[this.blocks.length - 1].write(text, this.used, 'utf8');
    this.used += bytes;
    return at;
  }

  read(at: number, bytes: number): string {
    if (bytes === 0) return '';
    const start = at % BLOCK;
    return this.blocks[Math.floor(at / BLOCK)].toString('utf8', start, start + bytes);
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

  /** The numbers pushed, as a typed array of their own length. */
  values(): T {
    return this.data.subarray(0, this.length) as T;
  }
}

/** A set of indexes (of shared strings) as bits: 1.3 million of them take 160 KB. */
export class IndexSet {
  private readonly words: Uint32Array;
  /** how many indexes of the set come before each word: built by the first `rank` */
  private before?: Uint32Array;
  size = 0;

  constructor(count: number) {
    this.words = new Uint32Array(Math.ceil(count / 32));
  }

  add(index: number): void {
    const bit = 1 << (index & 31);
    if (this.words[index >>> 5] & bit) return;
    this.words[index >>> 5] |= bit;
    this.size++;
    this.before = undefined;
  }

  has(index: number): boolean {
    return index >>> 5 < this.words.length && (this.words[index >>> 5] & (1 << (index & 31))) !== 0;
  }

  /** How many indexes of the set come before `index`. */
  rank(index: number): number {
    if (!this.before) {
      this.before = new Uint32Array(this.words.length);
      for (let w = 1; w < this.words.length; w++) this.before[w] = this.before[w - 1] + bitCount(this.words[w - 1]);
    }
    return this.before[index >>> 5] + bitCount(this.words[index >>> 5] & ((1 << (index & 31)) - 1));
  }
}

function bitCount(word: number): number {
  let n = 0;
  for (let w = word; w !== 0; w &= w - 1) n++;
  return n;
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
  private readonly texts = new TextBlocks();
  /** the shared strings the rows refer to, and where each one's text is once read (by rank in the set) */
  readonly shared: IndexSet;
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

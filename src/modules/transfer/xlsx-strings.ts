import type { SaxesTagPlain } from 'saxes';
import type { TimeSlices } from '../../lib/yield';
import { MAX_CELL_CHARS } from './columns';
import type { IndexSet } from './index-set';
import { parseXmlPart, type XmlVisitor } from './xlsx-xml';
import type { ZipPart } from './zip-limits';

/**
 * A workbook's shared strings (xl/sharedStrings.xml), without holding them. exceljs kept the
 * table whole: 32 MiB of tiny strings or rich-text runs, within the limits, grew the memory by
 * 100 to 150 MiB. Here a first pass keeps a byte of facts a string (whether there is one, is
 * empty or blank, is too long), which is all the sheet's checks need; the texts of the
 * strings the import keeps are read afterwards, in one more pass (`read`).
 *
 * A string is the text of its `<t>` elements, runs of rich text joined, phonetic readings
 * (`<rPh>`) left out; none when it has neither text nor runs (as exceljs had it).
 */

const PRESENT = 1;
const NOT_BLANK = 2;
const NOT_EMPTY = 4;
const TOO_LONG = 8;
/** The fewest bytes a string takes in the part: `<si>`, in a part cut short. */
const SMALLEST = 4;

/** What a pass learns of one string. */
interface StringSeen {
  length: number;
  blank: boolean;
  runs: number;
  /** its text, for the strings a pass reads (MAX_CELL_CHARS + 1 characters at most) */
  text: string;
}

/**
 * Walks the strings of the part in order: `wants(i)` whether string i's text is read; `seen`
 * gets each string; the walk stops when `enough()`.
 */
class StringWalk implements XmlVisitor {
  private index = -1;
  private depthInT = 0;
  private inPhonetic = false;
  private inString = false;
  /** the string being read: one object for them all */
  private readonly current: StringSeen = { length: 0, blank: true, runs: 0, text: '' };

  constructor(
    private readonly wants: (index: number) => boolean,
    private readonly seen: (index: number, s: StringSeen) => void,
    readonly done: () => boolean,
  ) {}

  open(tag: SaxesTagPlain): void {
    switch (tag.name) {
      case 'si':
        this.index++;
        this.inString = true;
        this.current.length = 0;
        this.current.blank = true;
        this.current.runs = 0;
        this.current.text = '';
        break;
      case 'r':
        if (this.inString) this.current.runs++;
        break;
      case 'rPh':
        this.inPhonetic = true;
        break;
      case 't':
        this.depthInT++;
        break;
    }
  }

  text(text: string): void {
    const s = this.current;
    if (!this.inString || this.depthInT === 0 || this.inPhonetic) return;
    s.length += text.length;
    if (s.blank && /\S/.test(text)) s.blank = false;
    if (this.wants(this.index) && s.text.length <= MAX_CELL_CHARS) s.text += text.slice(0, MAX_CELL_CHARS + 1 - s.text.length);
  }

  close(name: string): void {
    switch (name) {
      case 'si':
        if (this.inString) this.seen(this.index, this.current);
        this.inString = false;
        break;
      case 'rPh':
        this.inPhonetic = false;
        break;
      case 't':
        this.depthInT = Math.max(0, this.depthInT - 1);
        break;
    }
  }
}

export class SharedStrings {
  private constructor(
    private readonly part: ZipPart | undefined,
    /** a byte a string: PRESENT, NOT_BLANK, NOT_EMPTY, TOO_LONG */
    private readonly facts: Uint8Array,
    readonly count: number,
  ) {}

  /** The first pass: the facts of every string of `part` (a workbook may have none). */
  static async scan(part: ZipPart | undefined, slices: TimeSlices): Promise<SharedStrings> {
    if (!part) return new SharedStrings(undefined, new Uint8Array(0), 0);
    // sized for the most strings the part can hold; pages never written are never resident
    const facts = new Uint8Array(Math.floor(part.size / SMALLEST) + 1);
    let count = 0;
    const walk = new StringWalk(
      () => false,
      (i, s) => {
        count = i + 1;
        if (s.runs === 0 && s.length === 0) return;
        facts[i] = PRESENT | (s.blank ? 0 : NOT_BLANK) | (s.length > 0 ? NOT_EMPTY : 0) | (s.length > MAX_CELL_CHARS ? TOO_LONG : 0);
      },
      () => false,
    );
    await parseXmlPart(part, walk, slices);
    return new SharedStrings(part, facts, count);
  }

  /** Whether a cell that refers to string `index` has a value (an index past the table, or a string of nothing, has none). */
  has(index: number): boolean {
    return Number.isInteger(index) && index >= 0 && index < this.count && (this.facts[index] & PRESENT) !== 0;
  }

  isBlank(index: number): boolean {
    return (this.facts[index] & NOT_BLANK) === 0;
  }

  isEmpty(index: number): boolean {
    return (this.facts[index] & NOT_EMPTY) === 0;
  }

  isTooLong(index: number): boolean {
    return (this.facts[index] & TOO_LONG) !== 0;
  }

  /** The texts of the strings of `wanted` (each one `has`), given to `take` by rank in the set: one pass that stops after the last of them. */
  async read(wanted: IndexSet, take: (rank: number, text: string) => void, slices: TimeSlices): Promise<void> {
    if (wanted.size === 0 || !this.part) return;
    let next = 0;
    const walk = new StringWalk(
      (index) => wanted.has(index),
      (index, s) => {
        if (wanted.has(index)) take(next++, s.text);
      },
      () => next === wanted.size,
    );
    await parseXmlPart(this.part, walk, slices);
    if (next < wanted.size) throw new Error('a shared string first read was not found again');
  }
}

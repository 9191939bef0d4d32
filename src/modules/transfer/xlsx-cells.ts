import type { SaxesTagPlain } from 'saxes';
import { ValidationError } from '../../lib/errors';
import { MAX_CELL_CHARS, MAX_COLUMNS } from './columns';
import type { KeptCell } from './sheet-rows';
import type { SharedStrings } from './xlsx-strings';
import { UnreadablePart, type XmlVisitor } from './xlsx-xml';

/**
 * The rows and cells of a worksheet's XML, read as exceljs's streaming reader read them: a
 * shared string, inline text, a formula's result (a number unless its type is `str`), an error
 * as nothing, a boolean as true or false, anything else as a number; a row's width its last
 * column that holds a value. Where exceljs lost text this does not: inline rich text is all its
 * runs (exceljs: the last), CDATA is text, a phonetic reading (`<rPh>`) is not (exceljs: it
 * was), nor is the layout between tags, and a cell's or row's address may be left out.
 */

/** A cell as the pass reads it. */
interface Cell {
  col: number;
  /** where the row keeps it (-1: not kept) */
  slot: number;
  type: string;
  formula: boolean;
  /** whether it has a `<v>`, `<is>` or `<t>`: a value, read by its type */
  valued: boolean;
  /** its text so far: of a text cell when kept, else of its value (a number, a shared string's index), MAX_CELL_CHARS + 1 at most */
  text: string;
  length: number;
  blank: boolean;
}

/** A row as the pass reads it, handed over at its end. */
export interface RowRead {
  number: number;
  /** its place among the sheet's rows, from 1 */
  ordinal: number;
  /** the last column that holds a value (exceljs: values.length - 1) */
  width: number;
  empty: boolean;
  blank: boolean;
  /** the cells kept, by slot */
  cells: KeptCell[];
  /** the kept cells held as numbers, as bits by slot */
  numbers: number;
}

const tooLong = (row: number) => ValidationError.field('file', `Row ${row} has a cell longer than ${MAX_CELL_CHARS} characters`);
/** A cell a workbook holds as text (a formula's result only with type `str`). */
const isText = (c: Cell) => c.type === 'str' || (c.type === 'inlineStr' && !c.formula);
/** The types exceljs did not read as a number: a shared string, an error, a boolean (and text, above). */
const NOT_NUMBERS = new Set(['s', 'e', 'b']);
/** exceljs's limit: XFD. */
const LAST_COLUMN = 16384;

/** The column (from 1) of an address (`B7`, `$B$7`), 0 for one without letters (exceljs let such a cell go). */
function columnOf(ref: string): number {
  let col = 0;
  for (const ch of ref) {
    const code = ch.charCodeAt(0);
    if (code >= 65 && code <= 90) col = col * 26 + code - 64;
    else if (ch !== '$') break;
  }
  if (col > LAST_COLUMN) throw new UnreadablePart(`a cell of column ${col}`);
  return col;
}

/**
 * One pass over the sheet's rows: each row is checked (its width, its cells' length; a cell
 * longer than MAX_CELL_CHARS as soon as it is) and handed to `take` at its end. `slotOf(place)`:
 * where a row keeps the cell of that header place, of `width` (-1: not kept).
 */
export class SheetWalk implements XmlVisitor {
  private inSheetData = false;
  private row: RowRead | null = null;
  private cell: Cell | null = null;
  private inValue = 0;
  private inPhonetic = false;
  private lastRow = 0;
  private ordinal = 0;
  private lastCol = 0;
  /** set once `enough()`: the rest of the chunk saxes is given is not read either */
  private stopped = false;

  constructor(
    private readonly strings: SharedStrings,
    private readonly slotOf: (place: number) => number,
    private readonly width: number,
    private readonly take: (row: RowRead) => void,
    private readonly enough: () => boolean,
  ) {}

  done(): boolean {
    return this.stopped;
  }

  open(tag: SaxesTagPlain): void {
    if (this.stopped) return;
    switch (tag.name) {
      case 'sheetData':
        this.inSheetData = true;
        break;
      case 'row': {
        if (!this.inSheetData) break;
        const r = parseInt(tag.attributes.r ?? '', 10);
        this.lastRow = Number.isNaN(r) ? this.lastRow + 1 : r;
        this.lastCol = 0;
        this.row = { number: this.lastRow, ordinal: ++this.ordinal, width: 0, empty: true, blank: true, cells: new Array<KeptCell>(this.width).fill(''), numbers: 0 };
        break;
      }
      case 'c': {
        if (!this.row) break;
        const col = (this.lastCol = tag.attributes.r === undefined ? this.lastCol + 1 : columnOf(tag.attributes.r));
        const slot = col > 0 && col <= MAX_COLUMNS ? this.slotOf(col - 1) : -1;
        this.cell = { col, slot, type: tag.attributes.t ?? 'n', formula: false, valued: false, text: '', length: 0, blank: true };
        break;
      }
      case 'f':
        if (this.cell) this.cell.formula = true;
        break;
      case 'v':
      case 't':
        if (this.cell) [this.cell.valued, this.inValue] = [true, this.inValue + 1];
        break;
      case 'is':
        if (this.cell) this.cell.valued = true;
        break;
      case 'rPh':
        this.inPhonetic = true;
        break;
    }
  }

  text(text: string): void {
    const c = this.cell;
    if (!c || this.inValue === 0 || this.inPhonetic || this.stopped) return;
    c.length += text.length;
    if (isText(c)) {
      if (c.length > MAX_CELL_CHARS) throw tooLong(this.row!.number);
      if (c.blank && /\S/.test(text)) c.blank = false;
      if (c.slot < 0) return;
    }
    if (c.text.length <= MAX_CELL_CHARS) c.text += text.slice(0, MAX_CELL_CHARS + 1 - c.text.length);
  }

  close(name: string): void {
    if (this.stopped) return;
    switch (name) {
      case 'sheetData':
        this.inSheetData = false;
        break;
      case 'row': {
        const row = this.row;
        this.row = null;
        if (!row) break;
        if (row.width > MAX_COLUMNS) throw ValidationError.field('file', `Row ${row.number} has ${row.width} cells; at most ${MAX_COLUMNS} are read`);
        this.take(row);
        this.stopped = this.enough();
        break;
      }
      case 'c':
        if (this.cell && this.row) this.endCell(this.cell, this.row);
        this.cell = null;
        break;
      case 'v':
      case 't':
        this.inValue = Math.max(0, this.inValue - 1);
        break;
      case 'rPh':
        this.inPhonetic = false;
        break;
    }
  }

  /** A cell's value, as exceljs read it: checked, and kept when its column is. */
  private endCell(c: Cell, row: RowRead): void {
    if (c.col === 0) return;
    let value: KeptCell;
    let number = false;
    if (c.formula && !c.valued) value = '';
    else if (!c.valued) return;
    else if (isText(c)) value = c.text;
    else if (c.formula || !NOT_NUMBERS.has(c.type)) [value, number] = [String(parseFloat(c.text)), true];
    else if (c.type === 'e') value = '';
    else if (c.type === 'b') value = parseInt(c.text, 10) !== 0 ? 'true' : 'false';
    else {
      const index = parseInt(c.text, 10);
      if (!this.strings.has(index)) return;
      if (this.strings.isTooLong(index)) throw tooLong(row.number);
      value = { shared: index };
    }
    row.width = Math.max(row.width, c.col);
    const [empty, blank] =
      typeof value !== 'string' ? [this.strings.isEmpty(value.shared), this.strings.isBlank(value.shared)]
      : isText(c) ? [c.length === 0, c.blank]
      : [value === '', value.trim() === ''];
    row.empty &&= empty;
    row.blank &&= blank;
    if (c.slot < 0) return;
    row.cells[c.slot] = value;
    if (number) row.numbers |= 1 << c.slot;
  }
}

import { AppError, ValidationError } from '../../lib/errors';
import { TimeSlices } from '../../lib/yield';
import { MAX_COLUMNS } from './columns';
import { IndexSet } from './index-set';
import { KeptRows } from './sheet-rows';
import { SheetWalk, type RowRead } from './xlsx-cells';
import { SharedStrings } from './xlsx-strings';
import { parseXmlPart, UnreadablePart } from './xlsx-xml';
import { checkedXlsx, inflateLimits, SHARED_STRINGS, WORKSHEET, type ZipPart } from './zip-limits';
import type { ZipSource } from './zip-source';

/**
 * The first worksheet of an .xlsx, read by saxes as its part inflates, once the zip has passed
 * zip-limits.ts. exceljs's streaming reader held what it read: the shared strings whole, the
 * workbook's list of sheets, a cell's text however many tags cut it, every cell of a row, and
 * each as a slice of the 64 KiB of XML it was read from (V8 keeps the whole chunk alive);
 * crafted workbooks within the limits grew the memory by 50 to 340 MiB. This reader keeps only
 * the cells of the columns the import reads, compactly (sheet-rows.ts), the shared strings as
 * a byte of facts each until the end (xlsx-strings.ts), and stops at the first cell over
 * MAX_CELL_CHARS; cells are read as exceljs read them (xlsx-cells.ts).
 */

const unreadable = () => ValidationError.field('file', 'The file is not a readable .xlsx workbook');

export interface XlsxSheet {
  header: string[];
  kept: number[];
  rows: KeptRows;
}

/**
 * Reads the first worksheet: finds its header (the first row with a cell that is not empty),
 * then reads it again from the start, keeping of each data row the cells of `keptOf(header)`.
 * Reading stops after `maxRows` + 1 data rows; 413 when the kept cells outgrow keptTextBytes.
 */
export async function readXlsx(file: ZipSource, maxRows: number, keptOf: (header: string[]) => number[]): Promise<XlsxSheet> {
  const parts = await checkedXlsx(file, maxRows);
  const slices = new TimeSlices(10, 1);
  try {
    const strings = await SharedStrings.scan(parts.find((p) => p.name === SHARED_STRINGS), slices);
    const sheetPart = parts.find((p) => WORKSHEET.test(p.name));
    if (!sheetPart) return { header: [], kept: [], rows: new KeptRows(0) };
    const found = await findHeader(sheetPart, strings, slices);
    if (!found) return { header: [], kept: [], rows: new KeptRows(0) };
    const kept = keptOf(found.header);
    const rows = await readRows(sheetPart, strings, { ...found, kept, maxRows, slices });
    return { header: found.header, kept, rows };
  } catch (err) {
    throw err instanceof UnreadablePart ? unreadable() : err;
  }
}

/** The header row: its cells' texts (shared strings read in one pass that stops after the last of them), and its place. */
async function findHeader(part: ZipPart, strings: SharedStrings, slices: TimeSlices): Promise<{ header: string[]; ordinal: number } | null> {
  let found: RowRead | null = null;
  const walk = new SheetWalk(strings, (place) => (place < MAX_COLUMNS ? place : -1), MAX_COLUMNS, (row) => (found ??= row.empty ? null : row), () => found !== null);
  await parseXmlPart(part, walk, slices);
  const row = found as RowRead | null;
  if (!row) return null;
  const cells = row.cells.slice(0, row.width);
  const wanted = new IndexSet(strings.count);
  for (const c of cells) if (typeof c !== 'string') wanted.add(c.shared);
  const texts: string[] = [];
  await strings.read(wanted, (rank, text) => (texts[rank] = text), slices);
  // copies, not slices of the 64 KiB of XML they were read from
  const header = cells.map((c) => Buffer.from(typeof c === 'string' ? c : texts[wanted.rank(c.shared)]).toString());
  return { header, ordinal: row.ordinal };
}

/**
 * The data rows after the header, each kept cell as sheet-rows.ts holds it; then the texts of
 * the shared strings they refer to. 413 as soon as they hold more than keptTextBytes.
 */
async function readRows(
  part: ZipPart,
  strings: SharedStrings,
  at: { ordinal: number; kept: number[]; maxRows: number; slices: TimeSlices },
): Promise<KeptRows> {
  const { maxRows, slices } = at;
  const limit = inflateLimits(maxRows).keptTextBytes;
  const checkSize = () => {
    if (rows.size <= limit) return;
    throw new AppError(413, `The cells of the columns the import reads take more than ${Math.floor(limit / (1024 * 1024))} MiB in this workbook, the most read for IMPORT_MAX_ROWS ${maxRows}`);
  };
  const slots = new Int16Array(MAX_COLUMNS).fill(-1);
  at.kept.forEach((place, slot) => (slots[place] = slot));
  const rows = new KeptRows(at.kept.length, strings.count);
  const take = (row: RowRead) => {
    if (row.ordinal <= at.ordinal || row.blank) return;
    rows.add(row.number, row.cells, row.numbers);
    checkSize();
  };
  const walk = new SheetWalk(strings, (place) => (place < MAX_COLUMNS ? slots[place] : -1), at.kept.length, take, () => rows.length > maxRows);
  try {
    await parseXmlPart(part, walk, slices);
    if (rows.length > maxRows) return rows;
    await strings.read(
      rows.shared,
      (rank, text) => {
        rows.sharedText(rank, text);
        checkSize();
      },
      slices,
    );
    await rows.inlineShared(slices);
    return rows;
  } catch (err) {
    // a refused workbook's rows are not read: their temporary file, if they have one, goes now
    rows.close();
    throw err;
  }
}

import { isUtf8 } from 'node:buffer';
import { finished } from 'node:stream/promises';
import { CsvError, parse } from 'csv-parse';
import ExcelJS from 'exceljs';
import { AppError, ValidationError } from '../../lib/errors';
import { TimeSlices, yieldToLoop } from '../../lib/yield';
import { MAX_CELL_CHARS, MAX_COLUMNS } from './columns';
import { checkedXlsx } from './zip-limits';

/**
 * A file's rows as text: the header, then each data row with its own row number in the file.
 * `numbers`: the places of the cells a workbook holds as numbers (not text), which lose a
 * leading 0 or + on the way in (import.rows.ts refuses them in a phone column).
 */
export interface Sheet {
  header: string[];
  rows: Array<{ row: number; cells: string[]; numbers?: number[] }>;
}

export type SheetFormat = 'csv' | 'xlsx';

const unreadable = (message: string) => ValidationError.field('file', message);

/**
 * What the file is, by its content (a name or a Content-Type can lie): an .xlsx is a zip;
 * a CSV is UTF-8 text without NUL. Anything else is 415.
 */
export function formatOf(file: Buffer): SheetFormat {
  if (file.length === 0) throw unreadable('The file is empty');
  if (file.subarray(0, 4).equals(Buffer.from([0x50, 0x4b, 0x03, 0x04]))) return 'xlsx';
  if (file.subarray(0, 4).equals(Buffer.from([0xd0, 0xcf, 0x11, 0xe0]))) {
    throw new AppError(415, 'Unsupported file type: an Excel 97-2003 .xls workbook; save it as .xlsx or .csv');
  }
  if (file.includes(0) || !isUtf8(file)) {
    throw new AppError(415, 'Unsupported file type: send a .csv file (UTF-8 text) or an .xlsx workbook');
  }
  return 'csv';
}

/**
 * Reads a .csv or .xlsx file whole: 400 for a file that cannot be read, 413 for more than
 * `maxRows` data rows. Both readers yield to the event loop every few milliseconds, so that
 * other requests are answered while a large file is read (docs/performance.md).
 */
export async function readSheet(file: Buffer, maxRows: number): Promise<Sheet> {
  const format = formatOf(file);
  const sheet = format === 'csv' ? await readCsv(file, maxRows) : await readXlsx(file, maxRows);
  if (sheet.header.length === 0) throw unreadable(format === 'csv' ? 'The file is empty' : 'The workbook has no rows on its first sheet');
  if (sheet.header.length > MAX_COLUMNS) throw unreadable(`The file has ${sheet.header.length} columns; at most ${MAX_COLUMNS} are read`);
  checkRow(1, sheet.header);
  if (sheet.rows.length > maxRows) throw new AppError(413, `The file has more than ${maxRows} rows (IMPORT_MAX_ROWS)`);
  return sheet;
}

/** A row's cells within the limits of one row, or 400: checked as each row is read. */
function checkRow(row: number, cells: readonly string[]): void {
  if (cells.length > MAX_COLUMNS) throw unreadable(`Row ${row} has ${cells.length} cells; at most ${MAX_COLUMNS} are read`);
  if (cells.some((c) => c.length > MAX_CELL_CHARS)) throw unreadable(`Row ${row} has a cell longer than ${MAX_CELL_CHARS} characters`);
}

const CSV_PROBLEMS: Record<string, string> = {
  CSV_QUOTE_NOT_CLOSED: 'a quoted cell is not closed',
  CSV_INVALID_CLOSING_QUOTE: 'a quote closes a cell in the wrong place',
  CSV_NON_TRIMABLE_CHAR_AFTER_CLOSING_QUOTE: 'a quote closes a cell in the wrong place',
  CSV_INVALID_OPENING_QUOTE: 'a quote opens a cell in the wrong place',
};

/** The bytes given to the CSV parser between two yields: some 3 ms of parsing. */
const CSV_SLICE_BYTES = 64 * 1024;

/**
 * CSV by csv-parse: UTF-8 with or without a BOM, `,` or `;` (whichever the header line holds
 * more of), lines ended by CRLF, LF or CR, mixed. A row's number is its record's place in the
 * file, blank lines counted, as a spreadsheet numbers it (a quoted cell may span lines).
 * The parser takes the file 64 KiB at a time, the event loop running between slices (its
 * synchronous API held it for 0.5 s on 12.5 MB); a character cut between two slices is
 * joined again, since the parser decodes a cell's bytes only once the cell ends. Reading stops
 * after `maxRows` + 1 data rows.
 */
async function readCsv(file: Buffer, maxRows: number): Promise<Sheet> {
  const firstLine = file.subarray(0, lineEnd(file)).toString('utf8');
  const delimiter = (firstLine.match(/;/g)?.length ?? 0) > (firstLine.match(/,/g)?.length ?? 0) ? ';' : ',';
  const parser = parse({ bom: true, delimiter, record_delimiter: ['\r\n', '\n', '\r'], relax_column_count: true, skip_empty_lines: false });
  const sheet: Sheet = { header: [], rows: [] };
  let failure: unknown = null;
  let record = 0;
  parser.on('error', (err: unknown) => (failure ??= err));
  parser.on('data', (cells: string[]) => {
    const row = ++record;
    if (failure || sheet.rows.length > maxRows || !cells.some((c) => c.trim() !== '')) return;
    // the header is checked by readSheet, which names its width as the file's
    if (sheet.header.length === 0) {
      sheet.header = cells;
      return;
    }
    try {
      checkRow(row, cells);
      sheet.rows.push({ row, cells });
    } catch (err) {
      failure = err;
    }
  });
  for (let at = 0; at < file.length && !failure && sheet.rows.length <= maxRows; at += CSV_SLICE_BYTES) {
    parser.write(file.subarray(at, at + CSV_SLICE_BYTES));
    await yieldToLoop();
  }
  if (!failure && sheet.rows.length <= maxRows) {
    parser.end();
    await finished(parser).catch((err: unknown) => (failure ??= err));
  } else parser.destroy();
  if (failure instanceof CsvError) {
    const line = (failure as CsvError & { lines?: number }).lines;
    throw unreadable(`The CSV cannot be read${line ? ` at line ${line}` : ''}: ${CSV_PROBLEMS[failure.code] ?? 'the text is not valid CSV'}`);
  }
  if (failure) throw failure;
  return sheet;
}

/** Where the first line ends (CR or LF), or the file's end. */
function lineEnd(file: Buffer): number {
  const ends = [file.indexOf(0x0d), file.indexOf(0x0a)].filter((i) => i >= 0);
  return ends.length > 0 ? Math.min(...ends) : file.length;
}

/**
 * The first worksheet of an .xlsx by exceljs's streaming reader, once the zip has passed
 * zip-limits.ts (its inflated size, any one text, sizes that do not lie). Each row is checked as
 * it is read: its cells and their length, and reading stops after `maxRows` + 1 data rows.
 */
async function readXlsx(file: Buffer, maxRows: number): Promise<Sheet> {
  const zip = await checkedXlsx(file, maxRows);
  const sheet: Sheet = { header: [], rows: [] };
  const slices = new TimeSlices();
  try {
    const reader = new ExcelJS.stream.xlsx.WorkbookReader(zip, {
      sharedStrings: 'cache',
      hyperlinks: 'ignore',
      styles: 'ignore',
      worksheets: 'emit',
      entries: 'ignore',
    });
    for await (const worksheet of reader) {
      for await (const row of worksheet) {
        const values = row.values as unknown[];
        if (values.length - 1 > MAX_COLUMNS) throw unreadable(`Row ${row.number} has ${values.length - 1} cells; at most ${MAX_COLUMNS} are read`);
        const cells = Array.from({ length: Math.max(0, values.length - 1) }, (_, i) => cellText(values[i + 1]));
        checkRow(row.number, cells);
        if (sheet.header.length === 0 && sheet.rows.length === 0) {
          if (cells.some((c) => c !== '')) sheet.header = cells;
        } else if (cells.some((c) => c.trim() !== '')) {
          const numbers = numberCells(values);
          sheet.rows.push(numbers.length > 0 ? { row: row.number, cells, numbers } : { row: row.number, cells });
          if (sheet.rows.length > maxRows) return sheet;
        }
        if (slices.due()) await slices.pause();
      }
      break; // the first worksheet only: the template's second one lists the valid names
    }
  } catch (err) {
    if (err instanceof AppError) throw err;
    throw unreadable('The file is not a readable .xlsx workbook');
  }
  return sheet;
}

/** The places (from 0) of the cells held as numbers, a formula's numeric result included. */
function numberCells(values: readonly unknown[]): number[] {
  const places: number[] = [];
  for (let i = 1; i < values.length; i++) {
    const v = values[i];
    if (typeof v === 'number' || (typeof v === 'object' && v !== null && typeof (v as { result?: unknown }).result === 'number')) places.push(i - 1);
  }
  return places;
}

/** The pieces joined, or their first `max` characters: a cell of many long runs is refused without being built whole. */
function joinedUpTo(pieces: readonly string[], max: number): string {
  let text = '';
  for (const piece of pieces) {
    text += piece.slice(0, max - text.length);
    if (text.length >= max) break;
  }
  return text;
}

/**
 * The text of a cell as exceljs gives it: a number, a date, rich text, a hyperlink, a formula's
 * result. Rich text longer than MAX_CELL_CHARS comes cut at one character more, to be refused.
 */
function cellText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'object') {
    const v = value as { richText?: Array<{ text: string }>; text?: unknown; result?: unknown; error?: string };
    if (v.richText) return joinedUpTo(v.richText.map((r) => r.text ?? ''), MAX_CELL_CHARS + 1);
    if (v.text !== undefined) return cellText(v.text);
    if (v.result !== undefined) return cellText(v.result);
    if (v.error) return '';
  }
  return '';
}

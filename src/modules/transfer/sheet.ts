import { isUtf8 } from 'node:buffer';
import { finished } from 'node:stream/promises';
import { CsvError, parse } from 'csv-parse';
import { AppError, ValidationError } from '../../lib/errors';
import { yieldToLoop } from '../../lib/yield';
import { mapHeader, MAX_CELL_CHARS, MAX_COLUMNS } from './columns';
import { KeptRows } from './sheet-rows';
import { readXlsx } from './xlsx-sheet';

/**
 * A file's rows as text: the header, then each data row with its own row number in the file.
 * A row keeps only the cells of the columns of the header that the import knows (`kept`,
 * their places in the header), held compactly (sheet-rows.ts) and read by `cellsOf`.
 */
export interface Sheet {
  header: string[];
  kept: number[];
  /** each data row's number in the file */
  rows: Uint32Array;
  /** row i's kept cells, in the order of `kept` */
  cellsOf(i: number): string[];
  /**
   * The header places of row i's kept cells a workbook holds as numbers (not text), which lose
   * a leading 0 or + on the way in (import.rows.ts refuses them in a phone column).
   */
  numbersOf(i: number): number[];
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
  const { header, kept, rows } = format === 'csv' ? await readCsv(file, maxRows) : await readXlsx(file, maxRows, keptPlaces);
  if (header.length === 0) throw unreadable(format === 'csv' ? 'The file is empty' : 'The workbook has no rows on its first sheet');
  if (header.length > MAX_COLUMNS) throw unreadable(`The file has ${header.length} columns; at most ${MAX_COLUMNS} are read`);
  checkRow(1, header);
  if (rows.length > maxRows) throw new AppError(413, `The file has more than ${maxRows} rows (IMPORT_MAX_ROWS)`);
  return { header, kept, rows: rows.rowNumbers(), cellsOf: (i) => rows.cellsOf(i), numbersOf: (i) => rows.numberSlotsOf(i).map((slot) => kept[slot]) };
}

/**
 * The places of the header's columns that the import reads; none when mapHeader refuses the
 * header (a column named twice, no known column), as the import then does with its message.
 */
function keptPlaces(header: string[]): number[] {
  try {
    return [...mapHeader(header).positions.values()].sort((a, b) => a - b);
  } catch {
    return [];
  }
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
async function readCsv(file: Buffer, maxRows: number): Promise<{ header: string[]; kept: number[]; rows: KeptRows }> {
  const firstLine = file.subarray(0, lineEnd(file)).toString('utf8');
  const delimiter = (firstLine.match(/;/g)?.length ?? 0) > (firstLine.match(/,/g)?.length ?? 0) ? ';' : ',';
  const parser = parse({ bom: true, delimiter, record_delimiter: ['\r\n', '\n', '\r'], relax_column_count: true, skip_empty_lines: false });
  let header: string[] = [];
  let kept: number[] = [];
  let rows = new KeptRows(0);
  let failure: unknown = null;
  let record = 0;
  parser.on('error', (err: unknown) => (failure ??= err));
  parser.on('data', (cells: string[]) => {
    const row = ++record;
    if (failure || rows.length > maxRows || !cells.some((c) => c.trim() !== '')) return;
    // the header is checked by readSheet, which names its width as the file's
    if (header.length === 0) {
      [header, kept] = [cells, keptPlaces(cells)];
      rows = new KeptRows(kept.length);
      return;
    }
    try {
      checkRow(row, cells);
      rows.add(row, kept.map((place) => cells[place] ?? ''));
    } catch (err) {
      failure = err;
    }
  });
  for (let at = 0; at < file.length && !failure && rows.length <= maxRows; at += CSV_SLICE_BYTES) {
    parser.write(file.subarray(at, at + CSV_SLICE_BYTES));
    await yieldToLoop();
  }
  if (!failure && rows.length <= maxRows) {
    parser.end();
    await finished(parser).catch((err: unknown) => (failure ??= err));
  } else parser.destroy();
  if (failure instanceof CsvError) {
    const line = (failure as CsvError & { lines?: number }).lines;
    throw unreadable(`The CSV cannot be read${line ? ` at line ${line}` : ''}: ${CSV_PROBLEMS[failure.code] ?? 'the text is not valid CSV'}`);
  }
  if (failure) throw failure;
  return { header, kept, rows };
}

/** Where the first line ends (CR or LF), or the file's end. */
function lineEnd(file: Buffer): number {
  const ends = [file.indexOf(0x0d), file.indexOf(0x0a)].filter((i) => i >= 0);
  return ends.length > 0 ? Math.min(...ends) : file.length;
}

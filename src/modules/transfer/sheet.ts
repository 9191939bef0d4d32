import { finished } from 'node:stream/promises';
import type { Readable } from 'node:stream';
import { CsvError, parse, type Parser } from 'csv-parse';
import { AppError, ValidationError } from '../../lib/errors';
import { TimeSlices } from '../../lib/yield';
import { mapHeader, MAX_CELL_CHARS, MAX_COLUMNS } from './columns';
import { KeptRows } from './sheet-rows';
import { readXlsx, type XlsxSheet } from './xlsx-sheet';
import { bufferSource, SpooledFile } from './zip-source';

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
  /** Lets go of the rows' temporary file (a large file's rows are kept there: sheet-rows.ts); no row is read after this. */
  close(): void;
}

export type SheetFormat = 'csv' | 'xlsx';

const unreadable = (message: string) => ValidationError.field('file', message);

/** A file as the import receives it: whole (a Buffer), or as the request's body streams it in. */
export type SheetSource = Buffer | Readable;

/**
 * What the file is, by its first bytes (a name or a Content-Type can lie): an .xlsx is a zip,
 * an Excel 97-2003 workbook is 415, anything else is read as CSV, whose reader refuses text
 * that is not UTF-8 or holds a NUL (415) as it meets it.
 */
function formatOf(start: Buffer): SheetFormat {
  if (start.length === 0) throw unreadable('The file is empty');
  if (start.subarray(0, 4).equals(Buffer.from([0x50, 0x4b, 0x03, 0x04]))) return 'xlsx';
  if (start.subarray(0, 4).equals(Buffer.from([0xd0, 0xcf, 0x11, 0xe0]))) {
    throw new AppError(415, 'Unsupported file type: an Excel 97-2003 .xls workbook; save it as .xlsx or .csv');
  }
  return 'csv';
}

const notText = () => new AppError(415, 'Unsupported file type: send a .csv file (UTF-8 text) or an .xlsx workbook');

/**
 * Reads a .csv or .xlsx file: 400 for a file that cannot be read, 413 for more than `maxRows`
 * data rows. A streamed CSV is read as it arrives, so the upload is never held whole beside
 * its rows; a streamed .xlsx is written to a temporary file first (its zip is read from the
 * end), and read from there. Both readers yield to the event loop every few milliseconds, so
 * that other requests are answered while a large file is read (docs/performance.md). A stream
 * is not destroyed: what a refused file leaves unread is the caller's to drain.
 */
export async function readSheet(file: SheetSource, maxRows: number): Promise<Sheet> {
  const { start, chunks } = Buffer.isBuffer(file) ? { start: file, chunks: slicesOf(file) } : await opened(file);
  const format = formatOf(start);
  const read = format === 'csv' ? await readCsv(chunks, maxRows) : await xlsxOf(file, chunks, maxRows);
  const { header, kept, rows } = read;
  try {
    if (header.length === 0) throw unreadable(format === 'csv' ? 'The file is empty' : 'The workbook has no rows on its first sheet');
    if (header.length > MAX_COLUMNS) throw unreadable(`The file has ${header.length} columns; at most ${MAX_COLUMNS} are read`);
    checkRow(1, header);
    if (rows.length > maxRows) throw new AppError(413, `The file has more than ${maxRows} rows (IMPORT_MAX_ROWS)`);
  } catch (err) {
    rows.close();
    throw err;
  }
  return {
    header, kept, rows: rows.rowNumbers(), cellsOf: (i) => rows.cellsOf(i), numbersOf: (i) => rows.numberSlotsOf(i).map((slot) => kept[slot]), close: () => rows.close(),
  };
}

/**
 * The bytes given to the CSV parser at once: under a millisecond of parsing once its code is
 * optimized, but 15 ms or more before that, in a process's first import (64 KiB took 45 to 65
 * ms then). The reader yields to the event loop between slices once it has used its time.
 */
const SLICE_BYTES = 16 * 1024;

/** A whole file a slice at a time. */
async function* slicesOf(file: Buffer): AsyncGenerator<Buffer> {
  for (let at = 0; at < file.length; at += SLICE_BYTES) yield file.subarray(at, at + SLICE_BYTES);
}

/** A stream's first bytes (enough to tell the format) and all its bytes as slices, those first ones included. */
async function opened(stream: Readable): Promise<{ start: Buffer; chunks: AsyncGenerator<Buffer> }> {
  const source = stream.iterator({ destroyOnReturn: false });
  const first: Buffer[] = [];
  for (let size = 0; size < 4; ) {
    const step = await source.next();
    if (step.done) break;
    first.push(step.value as Buffer);
    size += (step.value as Buffer).length;
  }
  const start = Buffer.concat(first);
  async function* chunks(): AsyncGenerator<Buffer> {
    for (let step: IteratorResult<unknown> = { done: false, value: start }; !step.done; step = await source.next()) {
      const chunk = step.value as Buffer;
      for (let at = 0; at < chunk.length; at += SLICE_BYTES) yield chunk.subarray(at, at + SLICE_BYTES);
    }
  }
  return { start, chunks: chunks() };
}

/** The rows of an .xlsx: read from the Buffer given, or from a temporary file the stream is written to. */
async function xlsxOf(file: SheetSource, chunks: AsyncIterable<Buffer>, maxRows: number): Promise<XlsxSheet> {
  if (Buffer.isBuffer(file)) return readXlsx(bufferSource(file), maxRows, keptPlaces);
  const spooled = await SpooledFile.of(chunks);
  try {
    return await readXlsx(spooled, maxRows, keptPlaces);
  } finally {
    await spooled.close();
  }
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

/**
 * CSV by csv-parse: UTF-8 with or without a BOM, `,` or `;` (whichever the header line holds
 * more of), lines ended by CRLF, LF or CR, mixed. A row's number is its record's place in the
 * file, blank lines counted, as a spreadsheet numbers it (a quoted cell may span lines).
 * The parser takes the file a slice at a time as it comes; a character cut between two slices
 * is joined again, since the parser decodes a cell's bytes only once the cell ends, and the
 * UTF-8 check reads across slices too. Reading stops after `maxRows` + 1 data rows, or at the
 * first error.
 */
async function readCsv(chunks: AsyncIterable<Buffer>, maxRows: number): Promise<{ header: string[]; kept: number[]; rows: KeptRows }> {
  const text = new TextDecoder('utf-8', { fatal: true });
  const checkText = (bytes?: Buffer) => {
    if (bytes?.includes(0)) throw notText();
    try {
      text.decode(bytes, { stream: bytes !== undefined });
    } catch {
      throw notText();
    }
  };
  let header: string[] = [];
  let kept: number[] = [];
  let rows = new KeptRows(0);
  let failure: unknown = null;
  let record = 0;
  const onRecord = (cells: string[]) => {
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
  };
  // the parser is made once the first line is in, which tells the delimiter
  let parser: Parser | null = null;
  let head: Buffer[] = [];
  const begin = () => {
    const bytes = Buffer.concat(head);
    head = [];
    const firstLine = bytes.subarray(0, lineEnd(bytes)).toString('utf8');
    const delimiter = (firstLine.match(/;/g)?.length ?? 0) > (firstLine.match(/,/g)?.length ?? 0) ? ';' : ',';
    const made = parse({ bom: true, delimiter, record_delimiter: ['\r\n', '\n', '\r'], relax_column_count: true, skip_empty_lines: false });
    made.on('error', (err: unknown) => (failure ??= err));
    made.on('data', onRecord);
    made.write(bytes);
    return made;
  };
  const slices = new TimeSlices(10, 1);
  for await (const chunk of chunks) {
    checkText(chunk);
    if (parser) parser.write(chunk);
    else {
      head.push(chunk);
      if (lineEnd(chunk) < chunk.length) parser = begin();
    }
    if (failure || rows.length > maxRows) break;
    // a stream's chunks often wait for the network anyway, but a fast client's or a whole file's do not
    if (slices.due()) await slices.pause();
  }
  if (!failure && rows.length <= maxRows) {
    checkText();
    parser ??= begin();
    parser.end();
    await finished(parser).catch((err: unknown) => (failure ??= err));
  } else parser?.destroy();
  if (failure) rows.close();
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

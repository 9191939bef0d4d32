import { ValidationError } from '../../lib/errors';

/**
 * The columns of an import file and of an export, in this order (docs/import-export.md).
 * `unit` is a unit's code or name; the other names are found as register finds them.
 */
export const COLUMNS = [
  'name', 'service_no', 'email', 'phone', 'mobile', 'alternative_mobile', 'unit', 'department',
  'designation', 'rank', 'role', 'status', 'parent_service_no',
] as const;

/** Read from a file only when the request allows it (`passwords=allow`); never exported. */
export const PASSWORD_COLUMN = 'password';

export type Column = (typeof COLUMNS)[number] | typeof PASSWORD_COLUMN;

/** A file wider than this is refused whole. */
export const MAX_COLUMNS = 100;
/** A cell longer than this (characters) is refused whole: no field of a contact is near it. */
export const MAX_CELL_CHARS = 1000;

const KNOWN = new Map<string, Column>(([...COLUMNS, PASSWORD_COLUMN] as Column[]).map((c): [string, Column] => [keyOf(c), c]));

/** Headers are matched ignoring case, spaces and `_`: `Service No`, `service_no` and `SERVICENO` are one column. */
function keyOf(header: string): string {
  return header.toLowerCase().replace(/[\s_]+/g, '');
}

/** Where each known column is in a file, and the headers that name none (ignored). */
export interface HeaderMap {
  positions: Map<Column, number>;
  ignored: string[];
}

/** Reads the header row: 400 when it names no known column, or one column twice. */
export function mapHeader(header: readonly string[]): HeaderMap {
  const positions = new Map<Column, number>();
  const ignored: string[] = [];
  header.forEach((text, i) => {
    const column = KNOWN.get(keyOf(text));
    if (!column) {
      if (text.trim() !== '') ignored.push(text.trim());
      return;
    }
    if (positions.has(column)) throw ValidationError.field('file', `The header names the column ${column} twice`);
    positions.set(column, i);
  });
  if (positions.size === 0) {
    throw ValidationError.field('file', `The first row names no known column; expected a header such as ${COLUMNS.join(', ')}`);
  }
  return { positions, ignored };
}

/** Text a spreadsheet would run as a formula (OWASP, CSV injection), or such text already behind `'`s. */
const NEEDS_QUOTE = /^'*[=+\-@\t\r]/;
const QUOTED = /^'+[=+\-@\t\r]/;

/**
 * The one writer of cells: every cell of every CSV and .xlsx the service writes (the export,
 * the import template and its Lists sheet) is written through it. Text that starts with `=`,
 * `+`, `-`, `@`, tab or carriage return goes behind a `'`, so that Excel, LibreOffice and Sheets
 * show it as text (OWASP, CSV injection); an .xlsx too, since its text becomes a formula as soon
 * as a cell is edited or the sheet saved as CSV. Text that already starts with `'`s before such
 * a character gets one more, so that unescapeFormula gives back exactly what was written.
 */
export function safeCell(value: string | null | undefined): string {
  const text = value ?? '';
  return NEEDS_QUOTE.test(text) ? `'${text}` : text;
}

/** A row of cells, each through safeCell. */
export function safeRow(values: ReadonlyArray<string | null | undefined>): string[] {
  return values.map(safeCell);
}

/** The import's reading of a cell: takes away the `'` that safeCell puts, and only that one. */
export function unescapeFormula(text: string): string {
  return QUOTED.test(text) ? text.slice(1) : text;
}


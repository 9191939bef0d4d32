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

/**
 * The headers people write for each column besides its own name (docs/import-export.md,
 * Columns), as keyOf reads them. Only names that cannot mean another column: not `manager` or
 * `reports to`, which may hold a name rather than a service number.
 */
const ALIASES: Record<Column, readonly string[]> = {
  name: ['full name', 'contact name', 'employee name'],
  service_no: ['service number', 'service id', 'employee id', 'employee no', 'employee number', 'staff id', 'staff no'],
  email: ['e-mail', 'email address', 'e-mail address', 'email id', 'mail'],
  phone: ['phone no', 'phone number', 'telephone', 'tel', 'office phone', 'work phone'],
  mobile: ['mobile no', 'mobile number', 'mobile phone', 'cell', 'cell phone'],
  alternative_mobile: ['alternative mobile no', 'alternate mobile', 'alternate mobile no', 'alt mobile', 'second mobile'],
  unit: ['unit name', 'unit code'],
  department: ['dept', 'department name'],
  designation: ['job title', 'title', 'position'],
  rank: [],
  role: [],
  status: [],
  parent_service_no: ['parent service number', 'manager service no', 'manager service number', 'supervisor service no'],
  password: [],
};

const KNOWN = new Map<string, Column>(
  (Object.entries(ALIASES) as Array<[Column, readonly string[]]>).flatMap(([column, aliases]) => [column, ...aliases].map((h): [string, Column] => [keyOf(h), column])),
);

/**
 * Headers are matched ignoring case, spaces, `_`, `-` and `.`: `Service No.`, `service_no` and
 * `SERVICENO` are one column, and so are `E-mail` and `email`.
 */
function keyOf(header: string): string {
  return header.toLowerCase().replace(/[\s_.-]+/g, '');
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


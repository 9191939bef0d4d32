import { emailProblem, lengthBetween, lengthMessage, passwordProblem } from '../../lib/http/validate';
import { TimeSlices } from '../../lib/yield';
import { CONTACT_TEXT, STATUSES, type ContactParent } from '../contacts';
import { unescapeFormula, type Column, type HeaderMap } from './columns';
import type { Sheet } from './sheet';

/** One error of one row of the file: its own row number, the column, what is wrong. */
export interface RowError {
  row: number;
  field: string;
  message: string;
}

/**
 * A row's cells by column, trimmed. A column the file has is in the values, null when its cell
 * is empty ("no value": for an update, it clears an optional field); a column the file lacks is absent.
 */
export type RowValues = Partial<Record<Column, string | null>>;

/** Where a row's contact goes: under a contact of the directory, under another row's (by service number), at the top; undefined: where it is. */
export type ParentRef = ContactParent;

/**
 * The file's rows as the sheet keeps them (sheet-rows.ts: some 130 bytes a row), each decoded
 * into its values only while a pass needs it: 100,000 rows held as objects of strings took
 * 57 MiB of heap (docs/performance.md, "An import's memory").
 */
export class FileRows {
  private readonly slotOf: Map<number, number>;

  constructor(
    private readonly sheet: Sheet,
    private readonly header: HeaderMap,
  ) {
    this.slotOf = new Map(sheet.kept.map((place, slot) => [place, slot]));
  }

  get length(): number {
    return this.sheet.rows.length;
  }

  /** Row i's number in the file. */
  row(i: number): number {
    return this.sheet.rows[i];
  }

  /** The index of the row numbered `row` in the file (rows are kept in the file's order), or -1. */
  indexOf(row: number): number {
    const rows = this.sheet.rows;
    let [lo, hi] = [0, rows.length - 1];
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      if (rows[mid] === row) return mid;
      if (rows[mid] < row) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }

  /** Row i's values, the e-mail in lower case. */
  values(i: number): RowValues {
    const values = this.raw(i);
    if (values.email) values.email = values.email.toLowerCase();
    return values;
  }

  /** Row i's values as the file has them. */
  raw(i: number): RowValues {
    const cells = this.sheet.cellsOf(i);
    const values: RowValues = {};
    for (const [column, at] of this.header.positions) values[column] = this.valueAt(cells, at);
    return values;
  }

  /** Row i's value of one column as the file has it (null where the file has no such column). */
  value(i: number, column: Column): string | null {
    const at = this.header.positions.get(column);
    return at === undefined ? null : this.valueAt(this.sheet.cellsOf(i), at);
  }

  private valueAt(cells: readonly string[], at: number): string | null {
    const raw = unescapeFormula((cells[this.slotOf.get(at) ?? -1] ?? '').trim());
    return raw === '' ? null : raw;
  }

  /** The header places of row i's cells that a workbook holds as numbers. */
  numbersOf(i: number): number[] {
    return this.sheet.numbersOf(i);
  }

  position(column: Column): number | undefined {
    return this.header.positions.get(column);
  }
}

/** The lengths of each text column: a contact's own fields as POST /api/contacts has them, and the names. */
const TEXT_RULES: Partial<Record<Column, { label: string; min: number; max: number; required?: boolean }>> = {
  ...CONTACT_TEXT,
  unit: { label: 'Unit', min: 0, max: 255 },
  department: { label: 'Department', min: 0, max: 255 },
  designation: { label: 'Designation', min: 0, max: 255 },
  rank: { label: 'Rank', min: 0, max: 255 },
  role: { label: 'Role', min: 0, max: 255 },
  parent_service_no: { label: 'Parent service number', min: 0, max: 50 },
};

/** The fields a new contact needs, with their messages. */
export const REQUIRED_TO_CREATE: ReadonlyArray<[Column, string]> = [
  ['name', 'Name is required'],
  ['service_no', 'Service number is required'],
  ['email', 'Email is required'],
  ['phone', 'Phone is required'],
  ['unit', 'Unit is required'],
  ['designation', 'Designation is required'],
];

/** The phone columns: a workbook's number there has lost its leading 0 or + (01712... is 1712...). */
const PHONE_COLUMNS = new Set<Column>(['phone', 'mobile', 'alternative_mobile']);

/**
 * Checks every row of the file for what can be checked of one row alone: lengths, the e-mail,
 * the status, the password rule, a phone held as a number. The rows stay as the sheet keeps
 * them (FileRows). `passwords`: whether the request allows a password column
 * (docs/import-export.md, Passwords). Some 8 µs a row: the pass yields to the event loop every
 * few milliseconds.
 */
export async function readRows(sheet: Sheet, header: HeaderMap, passwords: boolean): Promise<{ rows: FileRows; errors: RowError[] }> {
  const rows = new FileRows(sheet, header);
  const errors: RowError[] = [];
  const slices = new TimeSlices();
  for (let i = 0; i < rows.length; i++) {
    const [row, values, numbers] = [rows.row(i), rows.raw(i), rows.numbersOf(i)];
    for (const [column, value] of Object.entries(values) as Array<[Column, string | null]>) {
      if (value === null) continue;
      const problem = numbers.includes(rows.position(column)!) && PHONE_COLUMNS.has(column)
        ? `The ${column} cell is a number in the workbook (${value}), which loses a leading 0 or +: format the ${column} column as Text and type the numbers again`
        : problemOf(column, value, passwords);
      if (problem) errors.push({ row, field: column, message: problem });
    }
    if (slices.due()) await slices.pause();
  }
  return { rows, errors };
}

/**
 * The rows' passwords, where the file has a password column: finding them reads every row (some
 * 100 ms for 100,000, which held every other request while a file was imported), so in slices.
 */
export async function passwordsOf(rows: FileRows): Promise<Array<{ row: number; password: string }>> {
  const found: Array<{ row: number; password: string }> = [];
  if (rows.position('password') === undefined) return found;
  const slices = new TimeSlices();
  for (let i = 0; i < rows.length; i++) {
    const password = rows.value(i, 'password');
    if (password) found.push({ row: rows.row(i), password });
    if (slices.due()) await slices.pause();
  }
  return found;
}

function problemOf(column: Column, value: string, passwords: boolean): string | null {
  if (!value.isWellFormed()) return 'The text is not well-formed Unicode';
  const rule = TEXT_RULES[column];
  if (rule) return lengthBetween(rule.min, rule.max)(value) ? null : lengthMessage(rule.label, rule);
  switch (column) {
    case 'email':
      return emailProblem(value);
    case 'status':
      return (STATUSES as readonly string[]).includes(value) ? null : `status must be one of: ${STATUSES.join(', ')}`;
    case 'password':
      if (!passwords) return 'Passwords in a file are refused unless the request sets passwords=allow';
      return passwordProblem(value, 'Password', true);
    default:
      return null;
  }
}

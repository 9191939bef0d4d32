import { emailProblem, lengthBetween, lengthMessage, passwordProblem } from '../../lib/http/validate';
import { TimeSlices } from '../../lib/yield';
import { CONTACT_TEXT, STATUSES, type ContactChanges, type ContactParent, type UserRow } from '../contacts';
import { unescapeFormula, type Column, type HeaderMap } from './columns';
import type { Sheet } from './sheet';

/** One error of one row of the file: its own row number, the column, what is wrong. */
export interface RowError {
  row: number;
  field: string;
  message: string;
}

/**
 * A row's cells by column, trimmed. A column the file has is in `values`, null when its cell is
 * empty ("no value": for an update, it clears an optional field); a column the file lacks is absent.
 */
export interface ImportRow {
  row: number;
  values: Partial<Record<Column, string | null>>;
}

/** Where a row's contact goes: under a contact of the directory, under another row's (by service number), at the top; undefined: where it is. */
export type ParentRef = ContactParent;

/** A row on its way to a write: its contact (when it exists), unit, fields and parent. */
export interface Resolved {
  input: ImportRow;
  serviceNo: string;
  current?: UserRow;
  unitId?: number;
  fields: Partial<ContactChanges>;
  parent?: ParentRef;
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
 * Reads every row of the file into an ImportRow and checks what can be checked of one row
 * alone: lengths, the e-mail, the status, the password rule, a phone held as a number.
 * `passwords`: whether the request allows a password column (docs/import-export.md,
 * Passwords). Some 8 µs a row: the pass yields to the event loop every few milliseconds.
 */
export async function readRows(sheet: Sheet, header: HeaderMap, passwords: boolean): Promise<{ rows: ImportRow[]; errors: RowError[] }> {
  const rows: ImportRow[] = [];
  const errors: RowError[] = [];
  const slices = new TimeSlices();
  const slotOf = new Map(sheet.kept.map((place, slot) => [place, slot]));
  for (let i = 0; i < sheet.rows.length; i++) {
    const [row, cells, numbers] = [sheet.rows[i], sheet.cellsOf(i), sheet.numbersOf(i)];
    const values: ImportRow['values'] = {};
    for (const [column, at] of header.positions) {
      const raw = unescapeFormula((cells[slotOf.get(at) ?? -1] ?? '').trim());
      values[column] = raw === '' ? null : raw;
    }
    const fail = (field: string, message: string) => errors.push({ row, field, message });
    for (const [column, value] of Object.entries(values) as Array<[Column, string | null]>) {
      if (value === null) continue;
      const problem = numbers.includes(header.positions.get(column)!) && PHONE_COLUMNS.has(column)
        ? `The ${column} cell is a number in the workbook (${value}), which loses a leading 0 or +: format the ${column} column as Text and type the numbers again`
        : problemOf(column, value, passwords);
      if (problem) fail(column, problem);
    }
    if (values.email) values.email = values.email.toLowerCase();
    rows.push({ row, values });
    if (slices.due()) await slices.pause();
  }
  return { rows, errors };
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

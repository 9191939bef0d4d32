import { stringify } from 'csv-stringify/sync';
import ExcelJS from 'exceljs';
import type { Queryable } from '../../lib/db';
import { STATUSES } from '../contacts';
import { ReferenceLookup } from '../reference';
import { COLUMNS, safeRow } from './columns';

/** exceljs validates a whole range at run time; its typings know only cell by cell. */
interface WithRangeValidation {
  dataValidations: { add(range: string, validation: ExcelJS.DataValidation): void };
}

/** Rows of the template's Contacts sheet that carry the lists' validation. */
const VALIDATED_ROWS = 10_000;

/** One example contact, with names taken from the reference data (the first of each list), as stored. */
function exampleRow(lookup: ReferenceLookup): string[] {
  const { units, departments, designations, ranks } = lookup.lists;
  const unit = units[0];
  const example: Record<(typeof COLUMNS)[number], string> = {
    name: 'Example Person',
    service_no: 'EX-0001',
    email: 'example.person@example.org',
    phone: '01700000000',
    mobile: '',
    alternative_mobile: '',
    unit: unit ? (unit.code ?? unit.name) : '',
    department: departments.find((d) => d.unit_id === unit?.id)?.name ?? '',
    designation: designations[0]?.name ?? '',
    rank: ranks[0]?.name ?? '',
    role: 'User',
    status: 'offline',
    parent_service_no: '',
  };
  return COLUMNS.map((c) => example[c]);
}

/** GET /api/contacts/import/template?format=csv: the header row and one example. */
export async function csvTemplate(db: Queryable): Promise<Buffer> {
  const lookup = await ReferenceLookup.load(db);
  return Buffer.from(stringify([safeRow(COLUMNS), safeRow(exampleRow(lookup))], { bom: true }));
}

/**
 * GET /api/contacts/import/template?format=xlsx: a Contacts sheet (header and one example) and a
 * Lists sheet with the valid units, departments (with their unit), designations, ranks, roles
 * and statuses; the Contacts columns that take a name from a list are validated against it.
 * Every cell of both sheets is written through safeRow, so a name picked from a list is the one
 * the Contacts sheet shows and the import reads back.
 */
export async function xlsxTemplate(db: Queryable): Promise<Buffer> {
  const lookup = await ReferenceLookup.load(db);
  const { units, departments, designations, ranks, roles } = lookup.lists;
  const workbook = new ExcelJS.Workbook();
  const contacts = workbook.addWorksheet('Contacts');
  contacts.addRow(safeRow(COLUMNS)).font = { bold: true };
  contacts.addRow(safeRow(exampleRow(lookup)));
  contacts.columns.forEach((column) => (column.width = 22));

  const lists = workbook.addWorksheet('Lists');
  const unitName = new Map(units.map((u) => [u.id, u.code ?? u.name]));
  const columns: Array<{ header: string; values: string[]; validates?: (typeof COLUMNS)[number] }> = [
    { header: 'unit', values: units.map((u) => u.code ?? u.name), validates: 'unit' },
    { header: 'unit_name', values: units.map((u) => u.name) },
    { header: 'department', values: departments.map((d) => d.name), validates: 'department' },
    { header: 'department_unit', values: departments.map((d) => unitName.get(d.unit_id) ?? '') },
    { header: 'designation', values: designations.map((d) => d.name), validates: 'designation' },
    { header: 'rank', values: ranks.map((r) => r.name), validates: 'rank' },
    { header: 'role', values: roles.map((r) => r.name), validates: 'role' },
    { header: 'status', values: [...STATUSES], validates: 'status' },
  ];
  columns.forEach((list, i) => {
    const column = lists.getColumn(i + 1);
    column.values = safeRow([list.header, ...list.values]);
    column.width = 24;
    if (!list.validates || list.values.length === 0) return;
    const letter = column.letter;
    const target = contacts.getColumn(COLUMNS.indexOf(list.validates) + 1).letter;
    // a list longer than Excel's limit for an inline list (255 characters) must be a range
    (contacts as unknown as WithRangeValidation).dataValidations.add(`${target}2:${target}${VALIDATED_ROWS}`, {
      type: 'list',
      allowBlank: true,
      formulae: [`Lists!$${letter}$2:$${letter}$${list.values.length + 1}`],
      showErrorMessage: true,
      errorTitle: `Unknown ${list.header}`,
      error: `Pick a ${list.header} from the Lists sheet`,
    });
  });
  lists.getRow(1).font = { bold: true };
  return Buffer.from(await workbook.xlsx.writeBuffer());
}

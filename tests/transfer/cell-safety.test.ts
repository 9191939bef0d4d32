import ExcelJS from 'exceljs';
import { parse } from 'csv-parse/sync';
import fc from 'fast-check';
import request from 'supertest';
import { safeCell, unescapeFormula } from '../../src/modules/transfer/columns';
import { setupOwnTestContext } from '../helpers/context';
import { bearer, createUser, type TestUser } from '../helpers/factory';
import { binaryBody, csv, importCsv, importFile, tagOf } from './transfer-support';

/**
 * Every CSV and .xlsx the service writes (the export and the import template, the template's
 * Lists sheet too) writes its cells through one writer: text a spreadsheet would take for a
 * formula goes behind a `'`, and the import takes exactly that `'` away again
 * (docs/import-export.md, Formula injection). Over a database of its own, so that the names
 * below, which sort before any letter, are the first of their lists and the template's example.
 */

const ctx = setupOwnTestContext('cells');

const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
/** What a spreadsheet runs as a formula (OWASP, CSV injection). */
const FORMULA_START = /^[=+\-@\t\r]/;

interface Named { id: number; name: string }
const made = {} as {
  unit: Named;
  department: Named;
  /** a department whose name starts with `'` and a formula character: the import must not take its own `'` */
  quotedDepartment: Named;
  designation: Named;
  rank: Named;
  superAdmin: TestUser;
  contacts: TestUser[];
};

beforeAll(async () => {
  const now = new Date();
  const stamp = { created_at: now, updated_at: now };
  const insert = async (table: string, row: Record<string, unknown>): Promise<Named> => {
    const [id] = await ctx.db(table).insert({ ...row, ...stamp });
    return { id: Number(id), name: String(row.name) };
  };
  made.unit = await insert('units', { name: '@Unit', code: null });
  made.department = await insert('departments', { unit_id: made.unit.id, name: '+Dept' });
  made.quotedDepartment = await insert('departments', { unit_id: made.unit.id, name: "'+Dept" });
  made.designation = await insert('designations', { name: '=1+1' });
  made.rank = await insert('ranks', { name: '-Rank', level: 99 });
  made.superAdmin = await createUser(ctx, { role: 'Super_admin' });
  made.contacts = [];
  for (const department of [made.department, made.quotedDepartment]) {
    const contact = await createUser(ctx, { unit_id: made.unit.id, department_id: department.id, phone: '+8801700000000' });
    await ctx.db('users').where({ id: contact.id }).update({ rank_id: made.rank.id, designation_id: made.designation.id });
    made.contacts.push(contact);
  }
});

const download = (path: string) => request(ctx.app).get(path).set(bearer(made.superAdmin)).buffer(true).parse(binaryBody);

const csvRows = (file: Buffer): string[][] => parse(file, { bom: true, relax_column_count: true });

/** Every cell of every sheet as text; a formula cell fails the test outright. */
async function xlsxCells(file: Buffer): Promise<Record<string, string[][]>> {
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.load(file as unknown as Parameters<ExcelJS.Xlsx['load']>[0]);
  const sheets: Record<string, string[][]> = {};
  workbook.eachSheet((sheet) => {
    const rows: string[][] = [];
    sheet.eachRow((row) => {
      const cells: string[] = [];
      row.eachCell({ includeEmpty: true }, (cell) => {
        expect(cell.type).not.toBe(ExcelJS.ValueType.Formula);
        cells[Number(cell.col) - 1] = cell.value === null ? '' : String(cell.value);
      });
      rows.push(Array.from(cells, (c) => c ?? ''));
    });
    sheets[sheet.name] = rows;
  });
  return sheets;
}

/** The cells of `rows` that a spreadsheet would run: none may be left. */
const unescaped = (rows: string[][]) => rows.flat().filter((c) => FORMULA_START.test(c));

/** The names each written cell is expected to hold, escaped as the writer escapes them. */
const ESCAPED = { unit: "'@Unit", department: "'+Dept", quotedDepartment: "''+Dept", designation: "'=1+1", rank: "'-Rank", phone: "'+8801700000000" };

async function referencesOf(serviceNo: string) {
  return ctx.db('users').where({ service_no: serviceNo }).first('unit_id', 'department_id', 'designation_id', 'rank_id');
}

function expectReferences(row: Record<string, unknown> | undefined, department: Named): void {
  expect(row).toBeDefined();
  expect([row!.unit_id, row!.department_id, row!.designation_id, row!.rank_id].map(Number)).toEqual([
    made.unit.id, department.id, made.designation.id, made.rank.id,
  ]);
}

describe('the one cell writer (safeCell) and the import\'s reading (unescapeFormula)', () => {
  it('never writes a cell that starts with a formula character, and the import reads back any text exactly', () => {
    const text = fc.tuple(fc.array(fc.constantFrom("'", '=', '+', '-', '@', '\t', '\r', ' ', 'a'), { maxLength: 4 }), fc.string()).map(([head, tail]) => head.join('') + tail);
    fc.assert(
      fc.property(text, (t) => {
        expect(FORMULA_START.test(safeCell(t))).toBe(false);
        expect(unescapeFormula(safeCell(t))).toBe(t);
      }),
      { numRuns: 2000 },
    );
    expect(safeCell(null)).toBe('');
  });
});

describe('GET /api/contacts/import/template', () => {
  it('format=csv escapes the formula names of its example row, and the filled-in template imports to those unit, department, designation and rank', async () => {
    const res = await download('/api/contacts/import/template?format=csv');
    expect(res.status).toBe(200);
    const rows = csvRows(res.body as Buffer);
    expect(unescaped(rows)).toEqual([]);
    const [header, example] = rows;
    const at = (column: string) => header.indexOf(column);
    expect([example[at('unit')], example[at('department')], example[at('designation')], example[at('rank')]]).toEqual([
      ESCAPED.unit, ESCAPED.quotedDepartment, ESCAPED.designation, ESCAPED.rank,
    ]);

    // the example filled in, and a second row naming the other department as the export writes it
    const [a, b] = [tagOf('CS'), tagOf('CS')];
    const fill = (sn: string, department: string) => example.map((cell, i) =>
      i === at('service_no') ? sn : i === at('email') ? `${sn.toLowerCase()}@cells.test` : i === at('department') ? department : cell);
    const imported = await importCsv(ctx, made.superAdmin, csv([header, fill(a, example[at('department')]), fill(b, ESCAPED.department)]));
    expect(imported.status).toBe(200);
    expect(imported.body.data).toMatchObject({ created: 2, failed: 0 });
    expectReferences(await referencesOf(a), made.quotedDepartment);
    expectReferences(await referencesOf(b), made.department);
  });

  it('format=xlsx escapes every cell of Contacts and Lists, and a row picked from the Lists imports to those unit, department, designation and rank', async () => {
    const res = await download('/api/contacts/import/template?format=xlsx');
    expect(res.status).toBe(200);
    const sheets = await xlsxCells(res.body as Buffer);
    expect(unescaped([...sheets.Contacts, ...sheets.Lists])).toEqual([]);
    const listed = (column: string) => sheets.Lists.map((r) => r[sheets.Lists[0].indexOf(column)]);
    expect(listed('unit')).toContain(ESCAPED.unit);
    expect(listed('unit_name')).toContain(ESCAPED.unit);
    expect(listed('department')).toEqual(expect.arrayContaining([ESCAPED.department, ESCAPED.quotedDepartment]));
    expect(listed('designation')).toContain(ESCAPED.designation);
    expect(listed('rank')).toContain(ESCAPED.rank);

    // fill the example row, and add one whose names are picked from the Lists sheet, as its dropdowns offer them
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(res.body as Parameters<ExcelJS.Xlsx['load']>[0]);
    const contacts = workbook.getWorksheet('Contacts')!;
    const header = sheets.Contacts[0];
    const [a, b] = [tagOf('XC'), tagOf('XC')];
    const picked: Record<string, string> = {
      name: 'Picked Person', phone: ESCAPED.phone, unit: ESCAPED.unit, department: ESCAPED.department,
      designation: ESCAPED.designation, rank: ESCAPED.rank, role: 'User', status: 'offline',
    };
    for (const [row, sn, values] of [[2, a, {}], [3, b, picked]] as const) {
      const fill: Record<string, string> = { ...values, service_no: sn, email: `${sn.toLowerCase()}@cells.test` };
      for (const [column, value] of Object.entries(fill)) contacts.getRow(row).getCell(header.indexOf(column) + 1).value = value;
    }
    const file = Buffer.from(await workbook.xlsx.writeBuffer());
    const imported = await importFile(ctx, made.superAdmin, file, { filename: 'template.xlsx', contentType: XLSX });
    expect(imported.status).toBe(200);
    expect(imported.body.data).toMatchObject({ created: 2, failed: 0 });
    expectReferences(await referencesOf(a), made.quotedDepartment);
    expectReferences(await referencesOf(b), made.department);
    expect((await ctx.db('users').where({ service_no: b }).first('phone')).phone).toBe('+8801700000000');
  });
});

describe('GET /api/contacts/export', () => {
  /** The exported rows of the two contacts, by service number: each names the unit, its department, designation and rank. */
  function expectContactsEscaped(rows: string[][]): void {
    const header = rows[0];
    const cell = (sn: string, column: string) => rows.find((r) => r[header.indexOf('service_no')] === sn)?.[header.indexOf(column)];
    const [plain, quoted] = made.contacts.map((c) => c.service_no);
    for (const [sn, department] of [[plain, ESCAPED.department], [quoted, ESCAPED.quotedDepartment]]) {
      expect(['unit', 'department', 'designation', 'rank', 'phone'].map((c) => cell(sn, c))).toEqual([
        ESCAPED.unit, department, ESCAPED.designation, ESCAPED.rank, ESCAPED.phone,
      ]);
    }
  }

  it('format=csv escapes every cell, and imports back with nothing changed', async () => {
    const res = await download(`/api/contacts/export?format=csv&unit_id=${made.unit.id}`);
    expect(res.status).toBe(200);
    const rows = csvRows(res.body as Buffer);
    expect(unescaped(rows)).toEqual([]);
    expectContactsEscaped(rows);
    const back = await importFile(ctx, made.superAdmin, res.body as Buffer, { filename: 'export.csv', contentType: 'text/csv' }, '?mode=upsert');
    expect(back.status).toBe(200);
    expect(back.body.data).toMatchObject({ unchanged: rows.length - 1, updated: 0, created: 0, failed: 0 });
  });

  it('format=xlsx escapes every cell, and imports back with nothing changed', async () => {
    const res = await download(`/api/contacts/export?format=xlsx&unit_id=${made.unit.id}`);
    expect(res.status).toBe(200);
    const rows = (await xlsxCells(res.body as Buffer)).Contacts;
    expect(unescaped(rows)).toEqual([]);
    expectContactsEscaped(rows);
    const back = await importFile(ctx, made.superAdmin, res.body as Buffer, { filename: 'export.xlsx', contentType: XLSX }, '?mode=upsert');
    expect(back.status).toBe(200);
    expect(back.body.data).toMatchObject({ unchanged: rows.length - 1, updated: 0, created: 0, failed: 0 });
  });
});

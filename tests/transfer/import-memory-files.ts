import { PassThrough } from 'node:stream';
import ExcelJS from 'exceljs';

/**
 * The files of the import's memory test (import-memory.test.ts) and its probe: `rows` contacts
 * with every column of the import filled, a ternary tree (ten levels for 100,000 rows) whose
 * rows come in a shuffled order (children often before their parents), as the benchmark's.
 */

export const FULL_HEADER = [
  'name', 'service_no', 'email', 'phone', 'mobile', 'alternative_mobile', 'unit', 'department', 'designation', 'rank', 'role', 'status', 'parent_service_no',
];

/** Names of the seeded reference data the rows use (seeds/reference-data.ts). */
export interface RowNames {
  unit: string;
  department: string;
  designation: string;
  rank: string;
}

/** The rows, header first; `tag` makes service numbers and e-mails unique to one run, `variant` changes the phones (an upsert's changes). */
export function fullRows(rows: number, names: RowNames, tag: string, variant = 0): string[][] {
  const sn = (i: number) => `${tag}-${i}`;
  const phone = (i: number, p: number) => `01${p}${String(i * 7 + variant).padStart(8, '0')}`.slice(0, 13);
  const order = Array.from({ length: rows }, (_, i) => i);
  let seed = 42;
  for (let i = rows - 1; i > 0; i--) {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    const j = seed % (i + 1);
    [order[i], order[j]] = [order[j], order[i]];
  }
  const out = [FULL_HEADER];
  for (const i of order) {
    out.push([
      `Person ${i} ${tag} Rahman`, sn(i), `${sn(i).toLowerCase()}@memory.test`, phone(i, 7), phone(i, 8), phone(i, 9),
      names.unit, names.department, names.designation, names.rank, 'User', i % 3 === 0 ? 'online' : 'offline',
      i === 0 ? '' : sn(Math.floor((i - 1) / 3)),
    ]);
  }
  return out;
}

export function csvOf(rows: string[][]): Buffer {
  return Buffer.from(rows.map((r) => r.join(',')).join('\r\n') + '\r\n');
}

/** An .xlsx of the rows, as Excel writes one (shared strings), by exceljs's streaming writer. */
export async function xlsxOf(rows: string[][]): Promise<Buffer> {
  const out = new PassThrough();
  const chunks: Buffer[] = [];
  out.on('data', (c: Buffer) => chunks.push(c));
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: out, useStyles: false, useSharedStrings: true });
  const sheet = workbook.addWorksheet('Contacts');
  for (const r of rows) sheet.addRow(r).commit();
  sheet.commit();
  await workbook.commit();
  return Buffer.concat(chunks);
}

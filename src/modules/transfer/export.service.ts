import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { stringify } from 'csv-stringify';
import ExcelJS from 'exceljs';
import type { Db } from '../../lib/db';
import { NotFoundError } from '../../lib/errors';
import { exportBatches, type ContactFilters, type ExportRow } from '../contacts';
import { COLUMNS, safeRow } from './columns';

export type FileFormat = 'csv' | 'xlsx';

export const CONTENT_TYPES: Record<FileFormat, string> = {
  csv: 'text/csv; charset=utf-8',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
};

/** A file's cells for one contact, in the import's columns, through the one cell writer (columns.ts). */
function cellsOf(row: ExportRow): string[] {
  const value: Record<(typeof COLUMNS)[number], string | null> = {
    name: row.name,
    service_no: row.service_no,
    email: row.email,
    phone: row.phone,
    mobile: row.mobile,
    alternative_mobile: row.alternative_mobile,
    unit: row.unit_code ?? row.unit_name,
    department: row.department_name,
    designation: row.designation_name,
    rank: row.rank_name,
    role: row.role_name,
    status: row.status,
    parent_service_no: row.parent_service_no,
  };
  return safeRow(COLUMNS.map((c) => value[c]));
}

/**
 * GET /api/contacts/export (docs/import-export.md): a listing's filtered set, or one subtree,
 * in the directory's pre-order, as a file the import reads back. Rows are written as they are
 * read, a batch at a time, and the next batch is read only when the client has taken the last
 * (CSV; exceljs's zip writer keeps no such pace), so memory does not grow with the directory.
 */
export class DirectoryExport {
  private readonly db: Db;

  constructor(deps: { db: Db }) {
    this.db = deps.db;
  }

  /** The batches to write; 404 for an unknown `rootId`. Call before the response starts. */
  async open(filters: ContactFilters, rootId?: number): Promise<AsyncGenerator<ExportRow[]>> {
    const batches = await exportBatches(this.db, filters, rootId);
    if (!batches) throw new NotFoundError('Contact not found');
    return batches;
  }

  static async writeCsv(batches: AsyncGenerator<ExportRow[]>, out: Writable): Promise<void> {
    const csv = stringify({ bom: true });
    const done = pipeline(csv, out);
    csv.write(safeRow(COLUMNS));
    for await (const batch of batches) {
      for (const row of batch) {
        if (!csv.write(cellsOf(row))) await once(csv, 'drain');
      }
    }
    csv.end();
    await done;
  }

  static async writeXlsx(batches: AsyncGenerator<ExportRow[]>, out: Writable): Promise<void> {
    const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: out, useStyles: false, useSharedStrings: false });
    const sheet = workbook.addWorksheet('Contacts');
    sheet.addRow(safeRow(COLUMNS)).commit();
    for await (const batch of batches) {
      for (const row of batch) sheet.addRow(cellsOf(row)).commit();
    }
    sheet.commit();
    await workbook.commit();
  }
}

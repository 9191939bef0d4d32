import type { Db } from '../../lib/db';
import { AppError, ValidationError } from '../../lib/errors';
import type { Actor } from '../audit';
import type { PasswordHasher } from '../access';
import type { ContactWrites, RuleFailure } from '../contacts';
import { mapHeader } from './columns';
import { planImport, type ImportMode, type Plan } from './import.plan';
import { passwordsOf, readRows, type FileRows, type RowError } from './import.rows';
import { readSheet, type Sheet, type SheetSource } from './sheet';
import { csvTemplate, xlsxTemplate } from './template';

export interface ImportOptions {
  mode: ImportMode;
  dryRun: boolean;
  /** whether the file may carry passwords (`passwords=allow`) */
  passwords: boolean;
}

export interface ImportReport {
  mode: ImportMode;
  dry_run: boolean;
  created: number;
  updated: number;
  unchanged: number;
  /** rows with at least one error */
  failed: number;
  /** the first MAX_REPORTED errors, by row */
  errors: RowError[];
  errors_total: number;
  /** headers that name no known column */
  ignored_columns: string[];
}

const MAX_REPORTED = 1000;
/** bcrypt runs on libuv's pool (4 threads by default): the import takes two, sign-ins keep the rest. */
const HASHING_AT_ONCE = 2;

/** Where a write's error field is, as a column of the file. */
const COLUMN_OF: Record<string, string> = {
  unit_id: 'unit', department_id: 'department', designation_id: 'designation', rank_id: 'rank', role_id: 'role', parent_id: 'parent_service_no',
};

/**
 * POST /api/contacts/import (docs/import-export.md): a file of contacts, read and mapped here,
 * then checked whole and written by the contacts' writer in one transaction, or not at all.
 */
export class DirectoryImport {
  private readonly db: Db;
  private readonly passwords: PasswordHasher;
  private readonly maxRows: number;
  private readonly writes: ContactWrites;

  constructor(deps: { db: Db; passwords: PasswordHasher; maxRows: number; writes: ContactWrites }) {
    this.db = deps.db;
    this.passwords = deps.passwords;
    this.maxRows = deps.maxRows;
    this.writes = deps.writes;
  }

  /**
   * Reads an import's file (readSheet): as its body streams in, from the route; whole, from a
   * test. The route reads it while it is uploaded, so the upload is never held whole.
   */
  readFile(file: SheetSource): Promise<Sheet> {
    return readSheet(file, this.maxRows);
  }

  /** Checks the file's rows, then imports them; the sheet is closed afterwards, whatever the outcome. */
  async run(sheet: Sheet, options: ImportOptions, actor: Actor): Promise<ImportReport> {
    try {
      return await this.importRows(await this.read(sheet, options.passwords), options, actor);
    } finally {
      sheet.close();
    }
  }

  private async importRows({ rows, errors: rowErrors, ignored }: { rows: FileRows; errors: RowError[]; ignored: string[] }, options: ImportOptions, actor: Actor): Promise<ImportReport> {
    const base = { mode: options.mode, dry_run: options.dryRun, ignored_columns: ignored };
    // before the lock: hashing 10,000 passwords takes minutes at a production cost
    const hashes = options.dryRun || rowErrors.length > 0 ? new Map<number, string>() : await this.hashPasswords(rows);
    let plan: Plan | null = null;
    const { failures, written } = await this.writes.changeMany(
      actor,
      async (trx) => {
        plan = await planImport(trx, rows, options.mode, actor, hashes);
        return { batch: plan, blocked: rowErrors.length > 0 || plan.errors.length > 0 };
      },
      {
        dryRun: options.dryRun,
        // one entry for the whole file: its counts, and every contact it wrote as a target
        audit: (done) => {
          const details = { mode: options.mode, rows: rows.length, created: done.created.size, updated: done.changed.length, unchanged: plan!.unchanged };
          return { action: 'contact.import', targetType: 'contact', targetId: null, targetIds: [...done.created.values(), ...done.changed], details };
        },
      },
    );
    const planned = plan as Plan | null;
    if (!planned) throw new Error('import: the plan did not run');
    const errors = [...rowErrors, ...planned.errors];
    errors.push(...rowErrorsOf(failures, rows, planned, errors));
    const report = reportOf(base, planned, errors);
    // a dry run answers as the import would: a file with row errors is a 422 either way
    if (!written && errors.length > 0) throw rejected(report);
    return report;
  }

  /** The file's rows, each checked alone. */
  private async read(sheet: Sheet, passwords: boolean): Promise<{ rows: FileRows; errors: RowError[]; ignored: string[] }> {
    const header = mapHeader(sheet.header);
    if (sheet.rows.length === 0) throw ValidationError.field('file', 'The file has a header but no rows');
    return { ...(await readRows(sheet, header, passwords)), ignored: header.ignored };
  }

  /** GET /api/contacts/import/template: the header and an example, as CSV or .xlsx. */
  template(format: 'csv' | 'xlsx'): Promise<Buffer> {
    return format === 'csv' ? csvTemplate(this.db) : xlsxTemplate(this.db);
  }

  /** Hashes of the rows' passwords by row number, a few at a time. */
  private async hashPasswords(rows: FileRows): Promise<Map<number, string>> {
    const pending = await passwordsOf(rows);
    const hashes = new Map<number, string>();
    const worker = async () => {
      for (let r = pending.pop(); r; r = pending.pop()) hashes.set(r.row, await this.passwords.hash(r.password));
    };
    await Promise.all(Array.from({ length: HASHING_AT_ONCE }, worker));
    return hashes;
  }
}

/**
 * The writer's failures as errors of the file's rows, in its columns and words. A row the
 * mapping already found wrong in a column keeps that error alone in that column (a service
 * number of an existing contact in create mode is not also "taken").
 */
function rowErrorsOf(failures: readonly RuleFailure[], rows: FileRows, plan: Plan, found: readonly RowError[]): RowError[] {
  if (failures.length === 0) return [];
  const said = new Set(found.map((e) => `${e.row}:${e.field}`));
  const errors: RowError[] = [];
  for (const f of failures) {
    const at = rows.indexOf(f.ref);
    const v = at < 0 ? {} : rows.values(at);
    const first = f.error.errors?.[0];
    const words: Array<[string, string]> =
      f.code === 'organization' ? [['service_no', 'This service number belongs to a contact of another organization']]
      : f.code === 'reach' ? [['service_no', 'Insufficient permissions to change this contact']]
      : f.code === 'role_reach' ? [['role', `Insufficient permissions to give the role ${plan.roleName(v.role ?? 'User')}`]]
      : f.code === 'parent_missing' ? [['parent_service_no', `Parent contact not found: ${v.parent_service_no}`]]
      : (f.error.errors ?? [{ field: first?.field ?? 'service_no', message: f.error.message }]).map((e) => [e.field, e.message]);
    for (const [field, message] of words) {
      const column = COLUMN_OF[field] ?? field;
      if (said.has(`${f.ref}:${column}`)) continue;
      said.add(`${f.ref}:${column}`);
      errors.push({ row: f.ref, field: column, message });
    }
  }
  return errors;
}

function reportOf(base: Pick<ImportReport, 'mode' | 'dry_run' | 'ignored_columns'>, plan: Plan, errors: RowError[]): ImportReport {
  errors.sort((a, b) => a.row - b.row);
  const failed = new Set(errors.map((e) => e.row)).size;
  const ok = errors.length === 0;
  return {
    mode: base.mode,
    dry_run: base.dry_run,
    created: ok ? plan.creates.length : 0,
    updated: ok ? plan.changes.length : 0,
    unchanged: ok ? plan.unchanged : 0,
    failed,
    errors: errors.slice(0, MAX_REPORTED),
    errors_total: errors.length,
    ignored_columns: base.ignored_columns,
  };
}

/** 422: the file was read, some rows are wrong, nothing was written. */
function rejected(report: ImportReport): AppError {
  const { errors, ...counts } = report;
  return new AppError(422, 'Import failed: nothing was written', errors, { report: counts });
}

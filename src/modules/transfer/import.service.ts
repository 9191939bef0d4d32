import type { Knex } from 'knex';
import type { Db } from '../../lib/db';
import { AppError, ValidationError } from '../../lib/errors';
import type { Actor, AuditTrail } from '../audit';
import type { PasswordHasher } from '../access';
import { assertChangeReferences, changeDirectory, insertContactForest, updateContact, type SearchBacklog } from '../contacts';
import { mapHeader } from './columns';
import { planImport, type ImportMode, type Plan } from './import.plan';
import { readRows, type ImportRow, type RowError } from './import.rows';
import { readSheet } from './sheet';
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

/** Ends a dry run: its transaction rolls back, and its report is the answer. */
class DryRunDone {
  constructor(readonly report: ImportReport) {}
}

/**
 * POST /api/contacts/import (docs/import-export.md): a file of contacts, checked whole and
 * written in one transaction under the directory lock, or not at all.
 */
export class DirectoryImport {
  private readonly db: Db;
  private readonly passwords: PasswordHasher;
  private readonly maxRows: number;
  private readonly audit: AuditTrail;
  private readonly backlog: SearchBacklog;

  constructor(deps: { db: Db; passwords: PasswordHasher; maxRows: number; audit: AuditTrail; backlog: SearchBacklog }) {
    this.db = deps.db;
    this.passwords = deps.passwords;
    this.maxRows = deps.maxRows;
    this.audit = deps.audit;
    this.backlog = deps.backlog;
  }

  async run(file: Buffer, options: ImportOptions, actor: Actor): Promise<ImportReport> {
    const { rows, errors: rowErrors, ignored } = await this.read(file, options.passwords);
    const base = { mode: options.mode, dry_run: options.dryRun, ignored_columns: ignored };
    // before the lock: hashing 10,000 passwords takes minutes at a production cost
    const hashes = options.dryRun || rowErrors.length > 0 ? new Map<number, string>() : await this.hashPasswords(rows);
    try {
      const report = await changeDirectory(this.db, async (trx) => {
        const plan = await planImport(trx, rows, options.mode, actor);
        const errors = [...rowErrors, ...plan.errors];
        const written = errors.length === 0 ? await write(trx, plan, hashes) : { errors: [], ids: [] };
        errors.push(...written.errors);
        const report = reportOf(base, plan, errors);
        if (options.dryRun) throw new DryRunDone(report);
        if (errors.length > 0) throw rejected(report);
        // one entry for the whole file: its counts, and every contact it wrote as a target
        const { created, updated, unchanged, mode } = report;
        const details = { mode, rows: rows.length, created, updated, unchanged };
        await this.audit.record(trx, actor, { action: 'contact.import', targetType: 'contact', targetId: null, targetIds: written.ids, details });
        return report;
      });
      // the new contacts' search grams, after the commit (contacts' search/backlog.ts)
      if (report.created > 0) this.backlog.schedule();
      return report;
    } catch (err) {
      if (err instanceof DryRunDone) return err.report;
      throw err;
    }
  }

  /** The file's rows, each checked alone; the file's cells are not kept (a 100,000-row file's are some 40 MB). */
  private async read(file: Buffer, passwords: boolean): Promise<{ rows: ImportRow[]; errors: RowError[]; ignored: string[] }> {
    const sheet = await readSheet(file, this.maxRows);
    const header = mapHeader(sheet.header);
    if (sheet.rows.length === 0) throw ValidationError.field('file', 'The file has a header but no rows');
    return { ...readRows(sheet, header, passwords), ignored: header.ignored };
  }

  /** GET /api/contacts/import/template: the header and an example, as CSV or .xlsx. */
  template(format: 'csv' | 'xlsx'): Promise<Buffer> {
    return format === 'csv' ? csvTemplate(this.db) : xlsxTemplate(this.db);
  }

  /** Hashes of the rows' passwords by row number, a few at a time. */
  private async hashPasswords(rows: ImportRow[]): Promise<Map<number, string>> {
    const pending = rows.filter((r) => r.values.password);
    const hashes = new Map<number, string>();
    const worker = async () => {
      for (let r = pending.pop(); r; r = pending.pop()) hashes.set(r.row, await this.passwords.hash(r.values.password!));
    };
    await Promise.all(Array.from({ length: HASHING_AT_ONCE }, worker));
    return hashes;
  }
}

/**
 * Writes a plan without errors: the new contacts as one forest, then the updates, parents first.
 * A rule that only the write can check (a unit change of a contact with children, say) stops
 * it, and is returned as the error of its row: the caller fails the whole import.
 */
async function write(trx: Knex.Transaction, plan: Plan, hashes: ReadonlyMap<number, string>): Promise<{ errors: RowError[]; ids: number[] }> {
  const created = await insertContactForest(
    trx,
    // the plan's own objects, not copies: 100,000 of them are some 20 MB
    plan.creates.map((c) => Object.assign(c.contact, { password_hash: c.password ? (hashes.get(c.row) ?? null) : null })),
  );
  for (const u of plan.updates) {
    const changes = { ...u.changes };
    if (u.parent !== undefined) changes.parent_id = u.parent === null ? null : 'id' in u.parent ? u.parent.id : created.get(u.parent.serviceNo)!;
    try {
      await assertChangeReferences(trx, u.current, changes);
      await updateContact(trx, u.current, changes);
    } catch (err) {
      if (!(err instanceof AppError) || err.status !== 400) throw err;
      const field = err.errors?.[0]?.field ?? 'service_no';
      return { errors: [{ row: u.row, field: COLUMN_OF[field] ?? field, message: err.errors?.[0]?.message ?? err.message }], ids: [] };
    }
  }
  return { errors: [], ids: [...created.values(), ...plan.updates.map((u) => u.current.id)] };
}

function reportOf(base: Pick<ImportReport, 'mode' | 'dry_run' | 'ignored_columns'>, plan: Plan, errors: RowError[]): ImportReport {
  errors.sort((a, b) => a.row - b.row);
  const failed = new Set(errors.map((e) => e.row)).size;
  const ok = errors.length === 0;
  return {
    mode: base.mode,
    dry_run: base.dry_run,
    created: ok ? plan.creates.length : 0,
    updated: ok ? plan.updates.length : 0,
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

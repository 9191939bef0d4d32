import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Config } from '../../src/config';
import type { Db } from '../../src/lib/db';
import { openOwnSeededDb } from '../helpers/context';
import { runProbe } from '../helpers/image-runtime';
import { csvOf, fullRows, xlsxOf, type RowNames } from './import-memory-files';

/**
 * A legitimate import at the limits (issue #22 item 2: "the service's resident memory grows by
 * less than 64 MiB for any upload within the size limit"): 100,000 rows (IMPORT_MAX_ROWS) with
 * every column filled, a tree ten levels deep, imported by DirectoryImport in a process of its
 * own (import-memory-probe.ts), run as the image runs the service (its heap's caps and glibc
 * settings, read from the Dockerfile). From the upload until its rows are read and checked (the
 * writer's transaction starts) its resident memory grows by less than 64 MiB: it grew by 90 to
 * 110 MiB while each row was an object of strings. A written import of the CSV or the .xlsx, new
 * contacts or an upsert of them with every phone changed, grows it by less than 64 MiB too
 * (some 330 MiB while the plan and the writer held an object a row: docs/performance.md, "An
 * import's memory").
 * IMPORT_MEMORY_REPORT=1 prints what each run measures; IMPORT_MEMORY_STAGES=1 runs every
 * format, mode and dry run with the garbage collected at each stage (the figures of the docs);
 * PROBE_NODE_ARGS adds Node.js flags to the probe's process (image-runtime.ts).
 */

const ROWS = 100_000;
/**
 * The bound, for a dry run and a written import alike, on both databases: the issue's 64 MiB.
 * A written import holds it since a large file's rows past their first 4 MiB wait in a temporary
 * file (sheet-rows.ts) and the image caps V8's semi-spaces at 8 MiB (Dockerfile). On Node.js 22, the image's version, an upsert on SQLite grew by 62 to 69
 * MiB with V8's default semi-spaces, and by 47.5 with them capped; the written create of the .xlsx
 * by 54.4, the most (docs/performance.md, "V8's young generation, capped"); before the rows went
 * to disk, by 57 to 74 on Node.js 20.
 */
const MiB_LIMIT = 64;
const PROBE = path.join(__dirname, 'import-memory-probe.ts');

interface Probed {
  created?: number;
  updated?: number;
  unchanged?: number;
  status?: number;
  message?: string;
  file_mib: number;
  read_peak_mib: number;
  peak_mib: number;
  ms: number;
}

function probe(config: Readonly<Config>, file: string, warmUp: string, mode: string, dryRun: boolean, stages = false): Promise<Probed> {
  // testConfig() takes SQLite's file from TEST_SQLITE_TEMPLATE: the probe imports into this file's own copy, not into the run's template
  const db: Record<string, string> = config.db.client === 'sqlite' ? { DB_CLIENT: 'sqlite', TEST_SQLITE_TEMPLATE: String(config.db.sqliteFilename) } : { DB_NAME: String(config.db.database) };
  return runProbe<Probed>(PROBE, [file, warmUp, mode, String(dryRun), ...(stages ? ['stages'] : [])], db);
}

async function rowNames(db: Db): Promise<RowNames> {
  const unit = await db('units').where({ code: 'HQ' }).first('id', 'code');
  const department = await db('departments').where({ unit_id: unit.id }).orderBy('id').first('name');
  const designation = await db('designations').orderBy('id').first('name');
  const rank = await db('ranks').orderBy('id').first('name');
  return { unit: unit.code, department: department.name, designation: designation.name, rank: rank.name };
}

describe('a 100,000-row import with every column filled, in a process of its own (as the image runs it: heap capped at 384 MiB, glibc thresholds fixed)', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'import-memory-'));
  const warmUp = path.join(dir, 'warm-up.csv');
  let opened: Awaited<ReturnType<typeof openOwnSeededDb>>;
  let names: RowNames;
  let runs = 0;
  const fileOf = async (format: 'csv' | 'xlsx', tag: string, variant = 0) => {
    const rows = fullRows(ROWS, names, tag, variant);
    const file = path.join(dir, `${tag}-${variant}.${format}`);
    writeFileSync(file, format === 'csv' ? csvOf(rows) : await xlsxOf(rows));
    return file;
  };
  const report = (what: string, result: unknown) => {
    if (process.env.IMPORT_MEMORY_REPORT || process.env.IMPORT_MEMORY_STAGES) process.stdout.write(`${what}: ${JSON.stringify(result)}\n`);
  };

  beforeAll(async () => {
    opened = await openOwnSeededDb('importmem');
    names = await rowNames(opened.db);
    writeFileSync(warmUp, csvOf(fullRows(50, names, 'WARM')));
  }, 60_000);
  afterAll(async () => {
    // the probe leaves the drain of the search backlog undone: nothing to wait for
    await opened?.db('contact_search_backlog').del();
    await opened?.done();
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  test.each(['csv', 'xlsx'] as const)(
    '%s: a dry run (every row passing) grows the resident memory by less than 64 MiB, until its rows are read and checked and to its end',
    async (format) => {
      const file = await fileOf(format, `MEM${format.toUpperCase()}${++runs}`);
      let result = await probe(opened.config, file, warmUp, 'create', true);
      // as in xlsx-memory.test.ts: the RSS depends on when V8's background collector gets a CPU,
      // so a run over the bound is measured once more in a fresh process, and two over it fail
      if (result.peak_mib >= MiB_LIMIT) result = await probe(opened.config, file, warmUp, 'create', true);
      report(`${format} create, dry run`, result);
      expect(result).toMatchObject({ created: ROWS, updated: 0, unchanged: 0 });
      expect(result.read_peak_mib).toBeLessThan(MiB_LIMIT);
      expect(result.peak_mib).toBeLessThan(MiB_LIMIT);
    },
    300_000,
  );

  test.each(['csv', 'xlsx'] as const)(`%s: a written import of 100,000 new contacts grows the resident memory by less than ${MiB_LIMIT} MiB`, async (format) => {
    const measure = async () => probe(opened.config, await fileOf(format, `MEMW${format.toUpperCase()}${++runs}`), warmUp, 'create', false);
    let result = await measure();
    // the same rule as above: a run over the bound is measured once more (a file of new contacts again), two over it fail
    if (result.peak_mib >= MiB_LIMIT) result = await measure();
    report(`${format} create, written`, result);
    expect(result).toMatchObject({ created: ROWS, updated: 0, unchanged: 0 });
    expect(result.peak_mib).toBeLessThan(MiB_LIMIT);
  }, 600_000);

  test(`csv: a written upsert of 100,000 existing contacts, every row's phones changed, grows the resident memory by less than ${MiB_LIMIT} MiB`, async () => {
    // the contacts to change: the same file written as new contacts first (not measured)
    const tag = `MEMU${++runs}`;
    expect(await probe(opened.config, await fileOf('csv', tag), warmUp, 'create', false)).toMatchObject({ created: ROWS });
    const measure = async (variant: number) => probe(opened.config, await fileOf('csv', tag, variant), warmUp, 'upsert', false);
    let result = await measure(1);
    // the same rule as above: a run over the bound is measured once more (every phone changed again), two over it fail
    if (result.peak_mib >= MiB_LIMIT) result = await measure(2);
    report('csv upsert, written', result);
    expect(result).toMatchObject({ created: 0, updated: ROWS, unchanged: 0 });
    expect(result.peak_mib).toBeLessThan(MiB_LIMIT);
  }, 600_000);

  (process.env.IMPORT_MEMORY_STAGES ? test : test.skip)('the figures of docs/performance.md: each format, mode and dry run, with the stages', async () => {
    for (const format of (process.env.IMPORT_MEMORY_FORMATS ?? 'csv,xlsx').split(',') as Array<'csv' | 'xlsx'>) {
      const tag = `STG${format.toUpperCase()}`;
      const file = await fileOf(format, tag);
      report(`${format} create dry`, await probe(opened.config, file, warmUp, 'create', true, true));
      report(`${format} create`, await probe(opened.config, file, warmUp, 'create', false, true));
      report(`${format} upsert dry, every row unchanged`, await probe(opened.config, file, warmUp, 'upsert', true, true));
      const changed = await fileOf(format, tag, 1);
      report(`${format} upsert dry, every row's phones changed`, await probe(opened.config, changed, warmUp, 'upsert', true, true));
      report(`${format} upsert, every row's phones changed`, await probe(opened.config, changed, warmUp, 'upsert', false, true));
    }
  }, 1_800_000);
});

import { createReadStream, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createDb } from '../../src/lib/db';
import { createLogger } from '../../src/lib/logger';
import { AuditTrail, type Actor } from '../../src/modules/audit';
import { PasswordHasher } from '../../src/modules/access';
import { permissionsOfRole } from '../../src/modules/access/grants';
import { ContactReads, ContactWrites, type SearchBacklog } from '../../src/modules/contacts';
import { DirectoryImport } from '../../src/modules/transfer';
import { testConfig } from '../helpers/config';

/**
 * Runs one import as the service does (DirectoryImport over the contacts' writer, in the
 * database the environment names: DB_CLIENT, SQLITE_FILENAME or DB_NAME) in a process of its
 * own, and prints how far its resident memory grew, as one line of JSON. Run by
 * import-memory.test.ts as
 * `node --expose-gc --max-old-space-size=384 --import tsx import-memory-probe.ts FILE WARM-UP-FILE MODE DRY-RUN [stages]`.
 *
 * A small file is imported first (as a dry run), as an earlier upload would have warmed the
 * service up, and the garbage collected. From there the peak is the larger of the kernel's
 * high-water mark (VmHWM, reset through /proc/self/clear_refs) and the RSS sampled every
 * millisecond; the upload streams from disk after the start, as a request's body streams in.
 * `read_peak_mib`: the growth to the peak until the rows are read and checked (the writer's
 * transaction starts); `peak_mib`: to the peak of the whole import. With `stages`, the garbage is collected at each stage
 * (rows read: the writer's transaction starts; planned; written) and the RSS and the heap
 * used then are printed too: where the memory goes, not the peak (the collections lower it).
 * The search backlog's drain after the commit is not run: it is not the import's request.
 */

const MiB = 1024 * 1024;
const mib = (bytes: number) => Math.round((bytes / MiB) * 10) / 10;
const highWaterMark = () => Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))![1]) * 1024;

async function main(): Promise<void> {
  const [path, warmUpPath, mode, dry, stagesArg] = process.argv.slice(2);
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with --expose-gc');
  const config = testConfig();
  const db = createDb(config.db, createLogger({ level: 'silent' }));
  const admin = await db('users').where({ email: 'admin@example.com' }).first();
  const actor: Actor = {
    userId: admin.id, roleId: admin.role_id, roleName: 'Super_admin', organizationId: admin.organization_id, email: admin.email, serviceNo: admin.service_no,
    permissions: new Set(await permissionsOfRole(db, admin.role_id)),
    versions: { directory: 0, search: 0, account: 0, reference: 0, locations: 0 },
    requestId: null, client: { ip: null, userAgent: null },
  };
  const backlog = { schedule: () => undefined } as unknown as SearchBacklog;
  const passwords = new PasswordHasher(4);
  const stages: Record<string, Record<string, number>> = {};
  let base = process.memoryUsage();
  const stage = (name: string) => {
    if (!stagesArg) return;
    gc();
    const now = process.memoryUsage();
    // the heap V8 holds (used and not), and the buffers outside it, besides the RSS
    stages[name] = {
      rss_mib: mib(now.rss - base.rss), heap_mib: mib(now.heapUsed - base.heapUsed), heap_total_mib: mib(now.heapTotal - base.heapTotal),
      external_mib: mib(now.external - base.external), array_buffers_mib: mib(now.arrayBuffers - base.arrayBuffers),
    };
  };
  const real = new ContactWrites({ db, reads: new ContactReads({ db, index: null }), passwords, audit: new AuditTrail({ enabled: true }), backlog });
  // the stages, seen from the writer: its transaction starts once the rows are read
  let readPeak = 0;
  const writes = {
    changeMany: (a, plan, options) => {
      readPeak = peak();
      stage('rows_read');
      return real.changeMany(a, async (trx) => {
        const planned = await plan(trx);
        stage('planned');
        return planned;
      }, { ...options, audit: (done) => (stage('written'), options.audit(done)) });
    },
  } as Pick<ContactWrites, 'changeMany'> as ContactWrites;
  const importer = new DirectoryImport({ db, passwords, maxRows: 100_000, writes });
  const options = { mode: mode as 'create' | 'upsert', dryRun: dry === 'true', passwords: false };
  await importer.run(await importer.readFile(createReadStream(warmUpPath)), { ...options, dryRun: true }, actor).catch(() => undefined);
  gc();
  gc();

  base = process.memoryUsage();
  writeFileSync('/proc/self/clear_refs', '5');
  let sampled = base.rss;
  const sampler = setInterval(() => (sampled = Math.max(sampled, process.memoryUsage.rss())), 1);
  const peak = () => Math.max(sampled, process.memoryUsage.rss(), highWaterMark());
  const started = performance.now();
  const fileMib = mib(statSync(path).size);
  let outcome: Record<string, unknown>;
  try {
    // the file is read as it streams in, as the route reads a request's body (transfer.router.ts)
    const report = await importer.run(await importer.readFile(createReadStream(path)), options, actor);
    outcome = { created: report.created, updated: report.updated, unchanged: report.unchanged };
  } catch (err) {
    const e = err as { status?: number; message?: string; errors?: Array<{ message: string }>; details?: unknown };
    outcome = { status: e.status ?? 500, message: e.message, first: e.errors?.[0]?.message };
  }
  clearInterval(sampler);
  const top = peak();
  const ms = Math.round(performance.now() - started);
  stage('answered');
  const read = { read_peak_mib: mib(readPeak - base.rss) };
  process.stdout.write(`${JSON.stringify({ ...outcome, file_mib: fileMib, ...read, peak_mib: mib(top - base.rss), ms, ...(stagesArg ? { stages } : {}) })}\n`);
  await db.destroy();
}

main().catch((err: unknown) => {
  process.stderr.write(`${(err as Error).stack}\n`);
  process.exit(1);
});

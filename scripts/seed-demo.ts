/**
 * Fills the database with a realistic demo directory, and optionally a year of failed sign-ins.
 *
 *   npm run seed:demo -- --contacts 100000 [--failed-logins 1000000] [--audit-events 1000000] [--seed 42]
 *
 * `--contacts 0` adds none, so a directory that has its contacts can get the other rows alone.
 *
 * Uses the same settings as the service (DB_CLIENT, SQLITE_FILENAME, DATABASE_URL, DB_*).
 * Migrates and seeds first, then adds demo units with departments and the contacts: trees 12+
 * levels deep, one very wide node per large unit, realistic names, e-mails, service numbers
 * and phones. Contacts are written with their order keys and search trigrams computed here in
 * one pass, in large batches inside one transaction.
 */
import { config as loadEnv } from 'dotenv';
import bcrypt from 'bcrypt';
import { loadConfig } from '../src/config';
import { createDb, dialectOf, ensureDatabase, type Db } from '../src/lib/db';
import { createLogger } from '../src/lib/logger';
import { prepareDatabase } from '../src/startup';
import { changeDirectory, changeStamp, computePreorder, contactGrams, markSearchChanged, sortNameOf, writeLabels } from '../src/modules/contacts';
import { seedAuditEvents } from './demo-audit';
import { seedFailedLogins } from './demo-security';
import { personName, phoneNumber, pick, prng, treeShape } from './demo-data';
import { bulkInsert, loadData } from '../src/lib/db';
import { Progress } from './progress';
import { nullableId } from '../src/lib/rows';

loadEnv({ quiet: true });

export const DEMO_PASSWORD = 'Demo@12345';
const DOMAINS = ['army.mil.bd', 'mail.gov.bd', 'directory.test'];

interface Options {
  contacts: number;
  failedLogins: number;
  auditEvents: number;
  seed: number;
}

function parseArgs(argv: string[]): Options {
  const options: Options = { contacts: 10_000, failedLogins: 0, auditEvents: 0, seed: 42 };
  for (let i = 0; i < argv.length; i += 2) {
    const value = Number(argv[i + 1]);
    if (!Number.isSafeInteger(value) || value < 0) throw new Error(`${argv[i]} needs a whole number`);
    if (argv[i] === '--contacts') options.contacts = value;
    else if (argv[i] === '--failed-logins') options.failedLogins = value;
    else if (argv[i] === '--audit-events') options.auditEvents = value;
    else if (argv[i] === '--seed') options.seed = value;
    else throw new Error(`unknown option ${argv[i]} (use --contacts N, --failed-logins N, --audit-events N, --seed N)`);
  }
  return options;
}

/** Unit sizes: one large unit (10% of all), five of ~4%, and the rest shared by up to 34 more. */
function unitSizes(total: number): number[] {
  const units = Math.max(1, Math.min(40, Math.ceil(total / 500)));
  if (units < 7) return Array.from({ length: units }, (_, i) => Math.floor(total / units) + (i === 0 ? total % units : 0));
  const large = Math.floor(total * 0.1);
  const medium = Math.floor(total * 0.04);
  const small = Math.floor((total - large - 5 * medium) / (units - 6));
  const sizes = [large, ...Array(5).fill(medium), ...Array(units - 6).fill(small)];
  sizes[sizes.length - 1] += total - sizes.reduce((a, b) => a + b, 0);
  return sizes;
}


export async function seedDemo(db: Db, options: Options): Promise<{ units: number; contacts: number }> {
  const random = prng(options.seed);
  const now = new Date();
  const stamp = { created_at: now, updated_at: now };
  const hash = await bcrypt.hash(DEMO_PASSWORD, 10);
  const designations = (await db('designations').pluck('id')).map(Number);
  const ranks = (await db('ranks').pluck('id')).map(Number);
  const sizes = unitSizes(options.contacts);
  const tag = `${options.seed}-${Date.now().toString(36)}`;

  // the directory lock is taken first (changeDirectory), then the bulk load's session settings
  return changeDirectory(db, async (trx) => {
    if (dialectOf(trx) === 'mysql') {
      await trx.raw('SET SESSION foreign_key_checks = 0');
      await trx.raw('SET SESSION unique_checks = 0');
    } else {
      // a page cache big enough for the index pages that the bulk load touches at random
      await trx.raw('PRAGMA cache_size = -1000000');
    }
    await markSearchChanged(trx);
    const parentUnit = await trx('units').where({ code: 'OPS' }).first('id');
    const units: Array<{ id: number; departments: number[] }> = [];
    for (let u = 0; u < sizes.length; u++) {
      const [id] = await trx('units').insert({
        name: `Demo Battalion ${tag} ${String(u + 1).padStart(2, '0')}`,
        code: `DB-${tag}-${u + 1}`.slice(0, 30),
        parent_id: parentUnit?.id ?? null,
        ...stamp,
      });
      const departments: number[] = [];
      for (const name of ['Alpha Company', 'Bravo Company', 'Charlie Company', 'Headquarters Company', 'Support Company'].slice(0, 3 + (u % 3))) {
        const [dept] = await trx('departments').insert({ unit_id: Number(id), name, ...stamp });
        departments.push(Number(dept));
      }
      units.push({ id: Number(id), departments });
    }

    // every contact in memory: ids given here, so the order keys can be computed before insert
    const maxRow = await trx('users').max({ max: 'id' }).first();
    let nextId = Number(maxRow?.max ?? 0) + 1;
    const rows: Array<Record<string, unknown>> = [];
    sizes.forEach((size, u) => {
      const unit = units[u];
      const shape = treeShape(random, size, 12 + (u % 4), u === 0 ? Math.min(2000, Math.floor(size / 5)) : Math.floor(size / 50));
      const firstId = nextId;
      for (let i = 0; i < size; i++) {
        const name = personName(random);
        const local = name.toLowerCase().replace(/[^a-z]+/g, '.').replace(/^\.|\.$/g, '');
        rows.push({
          id: nextId,
          name,
          sort_name: sortNameOf(name),
          // ids are never reused, so they keep e-mails and service numbers unique across runs
          email: `${local}${nextId}@${pick(random, DOMAINS)}`,
          service_no: `BA-${nextId}`,
          password_hash: hash,
          phone: phoneNumber(random),
          mobile: random() < 0.7 ? phoneNumber(random) : null,
          rank_id: random() < 0.9 ? pick(random, ranks) : null,
          unit_id: unit.id,
          department_id: random() < 0.85 ? pick(random, unit.departments) : null,
          designation_id: pick(random, designations),
          parent_id: shape[i] < 0 ? null : firstId + shape[i],
          role_id: i === 0 ? 2 : random() < 0.01 ? 2 : 3,
          organization_id: 1,
          status: pick(random, ['online', 'offline', 'offline', 'busy']),
          is_active: true,
          change_version: changeStamp(trx),
          ...stamp,
        });
        nextId++;
      }
    });

    const progress = new Progress('contacts', rows.length);
    const existing = await trx('users').select('id', 'parent_id', 'sort_name');
    const order = computePreorder([
      ...existing.map((r) => ({ id: Number(r.id), parent_id: nullableId(r.parent_id), sort_name: String(r.sort_name) })),
      ...rows.map((r) => ({ id: r.id as number, parent_id: r.parent_id as number | null, sort_name: r.sort_name as string })),
    ]);
    await writeLabels(trx, existing.map((r) => ({ id: Number(r.id), ...order.get(Number(r.id))! })));
    for (const r of rows) Object.assign(r, order.get(r.id as number));
    await bulkInsert(trx, 'users', rows, { progress });
    progress.done();

    // the trigram index, written in key order (gram, contact): appends, not random inserts
    const postings = new Map<number, number[]>();
    for (const r of rows) {
      for (const gram of contactGrams(r as Record<string, string | null>)) {
        const list = postings.get(gram);
        if (list) list.push(r.id as number);
        else postings.set(gram, [r.id as number]);
      }
    }
    const grams = [...postings.keys()].sort((a, b) => a - b);
    const sqlite = dialectOf(trx) === 'sqlite';
    const total = [...postings.values()].reduce((n, list) => n + list.length, 0);
    const gramProgress = new Progress('search index', total);
    // the lines of the load, 10,000 to a chunk, in key order
    function* lines(): Generator<string> {
      let chunk = '';
      let n = 0;
      for (const gram of grams) {
        for (const id of postings.get(gram)!) {
          chunk += `${gram}\t${id}\n`;
          if (++n === 10000) {
            gramProgress.advance(n);
            yield chunk;
            chunk = '';
            n = 0;
          }
        }
      }
      gramProgress.advance(n);
      if (chunk) yield chunk;
    }
    if (sqlite || !(await loadData(trx, 'contact_search_grams', ['gram', 'contact_id'], lines))) {
      let batch: Array<{ gram: number; contact_id: number }> = [];
      for (const gram of grams) {
        for (const id of postings.get(gram)!) {
          batch.push({ gram, contact_id: id });
          if (batch.length === 15000) {
            await bulkInsert(trx, 'contact_search_grams', batch, { progress: gramProgress });
            batch = [];
          }
        }
      }
      await bulkInsert(trx, 'contact_search_grams', batch, { progress: gramProgress });
    }
    gramProgress.done();
    return { units: units.length, contacts: rows.length };
  });
}

/** Fresh statistics, so the query planners pick the indexes a bulk load filled. */
export async function analyze(db: Db): Promise<void> {
  if (dialectOf(db) === 'mysql') await db.raw('ANALYZE TABLE users, contact_search_grams, failed_login_attempts, audit_events, audit_event_targets');
  else await db.raw('ANALYZE');
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  const config = loadConfig(process.env);
  const logger = createLogger({ level: 'warn' });
  await ensureDatabase(config.db);
  // bulk loads run for long: no query time limit
  const db = createDb({ ...config.db, queryTimeoutMs: 0 });
  const started = Date.now();
  try {
    await prepareDatabase(db, config, logger);
    if (options.contacts > 0) {
      const made = await seedDemo(db, options);
      process.stderr.write(`added ${made.contacts} contacts in ${made.units} units (password ${DEMO_PASSWORD})\n`);
    }
    if (options.failedLogins > 0) {
      await seedFailedLogins(db, options.failedLogins, prng(options.seed + 1));
      process.stderr.write(`added ${options.failedLogins} failed sign-ins\n`);
    }
    if (options.auditEvents > 0) {
      await seedAuditEvents(db, options.auditEvents, prng(options.seed + 2));
      process.stderr.write(`added ${options.auditEvents} audit events\n`);
    }
    await analyze(db);
    process.stderr.write(`done in ${((Date.now() - started) / 1000).toFixed(1)} s on ${config.db.client}\n`);
  } finally {
    await db.destroy();
  }
}

if (require.main === module) {
  main().catch((err: unknown) => {
    // a database error's message starts with the whole statement: keep only the driver's words
    const message = err instanceof Error ? err.message.split(' - ').pop()!.slice(0, 500) : String(err);
    process.stderr.write(`\nseed:demo failed: ${message}\n`);
    process.exit(1);
  });
}

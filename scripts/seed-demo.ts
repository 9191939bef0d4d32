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
 * and phones. The contacts go through the contacts' writer in one batch, as an import's rows do.
 */
import { config as loadEnv } from 'dotenv';
import bcrypt from 'bcrypt';
import { loadConfig } from '../src/config';
import { createDb, dialectOf, ensureDatabase, type Db } from '../src/lib/db';
import { createLogger } from '../src/lib/logger';
import { prepareDatabase } from '../src/startup';
import type { Knex } from 'knex';
import { PasswordHasher, ROLE_ID, sessionLoader } from '../src/modules/access';
import { AuditTrail, type Actor } from '../src/modules/audit';
import { ContactReads, ContactWrites, SearchBacklog, sessionSource, type BatchCreate } from '../src/modules/contacts';
import { seedAuditEvents } from './demo-audit';
import { seedFailedLogins } from './demo-security';
import { personName, phoneNumber, pick, prng, treeShape } from './demo-data';
import { Progress } from './progress';

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


/**
 * The demo contacts, written as an import writes a file: one batch through the contacts' writer
 * (ContactWrites.changeMany), so the demo data keeps every rule of a contact and gets its order
 * keys, search stamps and audit entry from the same code as any other write. Runs as the first
 * active Super_admin; the units and departments are made in the batch's transaction.
 */
export async function seedDemo(db: Db, options: Options): Promise<{ units: number; contacts: number }> {
  const random = prng(options.seed);
  const now = new Date();
  const stamp = { created_at: now, updated_at: now };
  const hash = await bcrypt.hash(DEMO_PASSWORD, 10);
  const designations = (await db('designations').pluck('id')).map(Number);
  const ranks = (await db('ranks').pluck('id')).map(Number);
  const sizes = unitSizes(options.contacts);
  const tag = `${options.seed}-${Date.now().toString(36)}`;
  const actor = await seedActor(db);
  let drainError: unknown = null;
  const backlog = new SearchBacklog({ db, onError: (err) => (drainError = err) });
  const writes = new ContactWrites({ db, reads: new ContactReads({ db, index: null }), passwords: new PasswordHasher(10), audit: new AuditTrail({ enabled: true }), backlog });

  let units = 0;
  const progress = new Progress('contacts', options.contacts);
  const { failures, written } = await writes.changeMany(
    actor,
    async (trx) => {
      if (dialectOf(trx) === 'mysql') {
        // the writer checks e-mails and service numbers itself, before the load
        await trx.raw('SET SESSION foreign_key_checks = 0');
        await trx.raw('SET SESSION unique_checks = 0');
      } else {
        // a page cache big enough for the index pages that the bulk load touches at random
        await trx.raw('PRAGMA cache_size = -1000000');
      }
      const madeUnits = await demoUnits(trx, sizes.length, tag, stamp);
      units = madeUnits.length;
      // numbers for e-mails and service numbers: above every id so far, so unique across runs
      const maxRow = await trx('users').max({ max: 'id' }).first();
      let next = Number(maxRow?.max ?? 0) + 1;
      const creates: BatchCreate[] = [];
      sizes.forEach((size, u) => {
        const unit = madeUnits[u];
        const shape = treeShape(random, size, 12 + (u % 4), u === 0 ? Math.min(2000, Math.floor(size / 5)) : Math.floor(size / 50));
        const first = next;
        for (let i = 0; i < size; i++) {
          const name = personName(random);
          const local = name.toLowerCase().replace(/[^a-z]+/g, '.').replace(/^\.|\.$/g, '');
          creates.push({
            ref: creates.length + 1,
            passwordHash: hash,
            parent: shape[i] < 0 ? null : { serviceNo: `BA-${first + shape[i]}` },
            contact: {
              name,
              email: `${local}${next}@${pick(random, DOMAINS)}`,
              service_no: `BA-${next}`,
              phone: phoneNumber(random),
              mobile: random() < 0.7 ? phoneNumber(random) : null,
              rank_id: random() < 0.9 ? pick(random, ranks) : null,
              unit_id: unit.id,
              department_id: random() < 0.85 ? pick(random, unit.departments) : null,
              designation_id: pick(random, designations),
              role_id: i === 0 ? ROLE_ID.admin : random() < 0.01 ? ROLE_ID.admin : ROLE_ID.user,
              organization_id: actor.organizationId,
              status: pick(random, ['online', 'offline', 'offline', 'busy']),
            },
          });
          next++;
        }
      });
      return { batch: { creates, changes: [] }, blocked: false };
    },
    {
      dryRun: false,
      audit: (done) => ({ action: 'contact.seed_demo', targetType: 'contact', targetId: null, details: { created: done.created.size, units } }),
    },
  );
  if (!written) throw new Error(`the demo contacts break a rule: ${failures.slice(0, 3).map((f) => f.error.message).join('; ')}`);
  progress.advance(written.created.size);
  progress.done();

  // the new contacts' search grams: the writer's backlog writes them after the commit
  process.stderr.write('writing the search index...\n');
  await backlog.settled();
  if (drainError) throw drainError;
  return { units, contacts: written.created.size };
}

/** The first active Super_admin, as a signed-in actor (seeds made one: ADMIN_EMAIL). */
async function seedActor(db: Db): Promise<Actor> {
  const admin = await db('users').where({ role_id: ROLE_ID.superAdmin, is_active: true }).orderBy('id').first('id', 'token_version');
  if (!admin) throw new Error('no active Super_admin to write the demo contacts as (run npm run db:seed first)');
  const auth = await sessionLoader(sessionSource(db))(Number(admin.id), Number(admin.token_version));
  if (!auth) throw new Error('the Super_admin\'s session cannot be read');
  return { ...auth, requestId: null, client: { ip: null, userAgent: 'seed:demo' } };
}

/** The demo units (under OPS when it exists), each with three to five departments. */
async function demoUnits(trx: Knex.Transaction, count: number, tag: string, stamp: { created_at: Date; updated_at: Date }) {
  const parentUnit = await trx('units').where({ code: 'OPS' }).first('id');
  const units: Array<{ id: number; departments: number[] }> = [];
  for (let u = 0; u < count; u++) {
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
  return units;
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

import { config as loadEnv } from 'dotenv';
import { loadConfig } from './config';
import { pruneAuditTrail } from './modules/audit';
import { createDb, type Db } from './lib/db';
import { createLogger } from './lib/logger';
import { changesCutoff, checkDirectory, directorySound, FINDINGS, pruneChanges, repairDirectory, type DirectoryReport } from './modules/contacts';
import { logStartFailure, MIGRATIONS, prepareDatabase, waitForDatabase } from './startup';

loadEnv({ quiet: true });

const USAGE = `usage: cli <command>
  migrate    apply the migrations that are not applied yet
  rollback   undo the last batch of migrations
  seed       migrate, then seed what is missing (roles, organization 1, reference data, locations, first admin)
  audit:prune  delete the audit entries older than AUDIT_RETENTION_DAYS (0, the default: keep them all)
  changes:prune
             delete the change feed's changes older than CHANGES_RETENTION_DAYS (30 by default; 0: keep
             them all), as the service does once an hour
  directory:check [--repair | --respace]
             check the contacts' derived columns (depth, order keys, sort names, search grams) against
             their rows; --repair rebuilds what is wrong under the directory lock; --respace does too,
             and labels the whole order afresh, evenly spaced, even when it is sound. Exits 1 while a
             problem is left`;

const COMMANDS = ['migrate', 'rollback', 'seed', 'audit:prune', 'changes:prune', 'directory:check'];
const DAY_MS = 86_400_000;

/** One line per kind of problem: how many, and the first ids. */
function describe(report: DirectoryReport): string {
  const lines = [`${report.contacts} contacts, ${report.backlog} in the search backlog`];
  for (const kind of FINDINGS) {
    const { count, ids } = report[kind];
    lines.push(`${kind.padEnd(10)} ${count === 0 ? 'ok' : `${count} wrong: ${ids.join(', ')}${count > ids.length ? ', ...' : ''}`}`);
  }
  return `${lines.join('\n')}\n`;
}

async function checkCommand(db: Db, repair: boolean, respace: boolean): Promise<void> {
  if (repair || respace) {
    process.stdout.write(`before the repair:\n${describe(await repairDirectory(db, { respace }))}`);
  }
  const report = await checkDirectory(db);
  process.stdout.write(`${repair || respace ? 'after the repair:\n' : ''}${describe(report)}`);
  if (!directorySound(report)) process.exitCode = 1;
}

async function main(command: string | undefined, options: string[]): Promise<void> {
  const config = loadConfig(process.env);
  const logger = createLogger({ level: config.logLevel === 'silent' ? 'silent' : 'info' });
  if (command === undefined || !COMMANDS.includes(command)) {
    process.stderr.write(`${USAGE}\n`);
    process.exitCode = 2;
    return;
  }
  if (command === 'audit:prune' && config.audit.retentionDays === 0) {
    logger.info('AUDIT_RETENTION_DAYS is 0: every audit entry is kept');
    return;
  }
  const changesBefore = changesCutoff(config.changes.retentionDays);
  if (command === 'changes:prune' && !changesBefore) {
    logger.info('CHANGES_RETENTION_DAYS is 0: every change of the feed is kept');
    return;
  }
  await waitForDatabase(config.db, config.dbStartTimeoutS, logger);
  // migrations and seeding: no query time limit
  const db = createDb({ ...config.db, queryTimeoutMs: 0 });
  try {
    if (command === 'migrate') {
      const [, applied] = await db.migrate.latest(MIGRATIONS);
      logger.info({ migrations: applied }, applied.length ? 'migrated' : 'already up to date');
    } else if (command === 'audit:prune') {
      const before = new Date(Date.now() - config.audit.retentionDays * DAY_MS);
      const removed = await pruneAuditTrail(db, before);
      logger.info({ removed, before: before.toISOString() }, 'pruned the audit trail');
    } else if (command === 'changes:prune' && changesBefore) {
      const { removed, prunedThrough } = await pruneChanges(db, changesBefore);
      logger.info({ removed, pruned_through: prunedThrough, before: changesBefore.toISOString() }, 'pruned the change feed');
    } else if (command === 'directory:check') {
      await checkCommand(db, options.includes('--repair'), options.includes('--respace'));
    } else if (command === 'rollback') {
      const [, undone] = await db.migrate.rollback(MIGRATIONS);
      logger.info({ migrations: undone }, 'rolled back');
    } else {
      await prepareDatabase(db, config, logger);
      logger.info('seeded');
    }
  } finally {
    await db.destroy();
  }
}

main(process.argv[2], process.argv.slice(3)).catch((err: unknown) => {
  logStartFailure(err, `${process.argv[2] ?? 'command'} failed`);
  process.exit(1);
});

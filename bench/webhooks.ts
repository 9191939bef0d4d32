/**
 * npm run bench:webhooks [-- --events 5000] [--receivers-ms 0]
 *
 * Webhook deliveries per second to a local receiver (issue 24, item 4: at least 500 events/s).
 * On the configured database (DB_CLIENT; SQLite: a fresh file under tmp/), with the schema and
 * the seed: one hook subscribed to `contact.*` pointing at a node:http receiver on 127.0.0.1
 * (WEBHOOKS_ALLOW_PRIVATE), `--events` rows written straight into the change feed (each a
 * change of the seeded administrator: what is measured is the dispatcher, not the writers),
 * then one dispatcher started and timed until the receiver has had every event once. Prints
 * the fan-out's and the whole delivery's rate. `--receiver-ms` makes the receiver answer after
 * that many milliseconds (a slower endpoint).
 */
import fs from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { config as loadEnv } from 'dotenv';
import { loadConfig } from '../src/config';
import { createDb, ensureDatabase } from '../src/lib/db';
import { createLogger } from '../src/lib/logger';
import { prepareDatabase } from '../src/startup';
import { ChangeFeed } from '../src/modules/contacts';
import { WebhookDispatcher } from '../src/modules/webhooks';

loadEnv({ quiet: true });

function arg(name: string, fallback: number): number {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? Number(process.argv[at + 1]) : fallback;
}

async function main(): Promise<void> {
  const events = arg('events', 5000);
  const receiverMs = arg('receiver-ms', 0);
  const sqlite = path.resolve('tmp', `bench-webhooks-${process.pid}.sqlite3`);
  const config = loadConfig({
    ...process.env,
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    SQLITE_FILENAME: sqlite,
    DB_NAME: process.env.DB_NAME ? `${process.env.DB_NAME}_bench_webhooks` : 'directory_bench_webhooks',
    WEBHOOKS_ALLOW_PRIVATE: 'true',
    WEBHOOK_POLL_MS: '20',
  });
  fs.mkdirSync('tmp', { recursive: true });
  const logger = createLogger({ level: 'silent' });
  await ensureDatabase(config.db);
  const db = createDb(config.db, logger);
  let seen = 0;
  const ids = new Set<string>();
  let resolveAll: () => void = () => undefined;
  const all = new Promise<void>((resolve) => (resolveAll = resolve));
  const receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      ids.add(String(req.headers['webhook-id']));
      seen++;
      const answer = () => res.writeHead(204).end();
      if (receiverMs > 0) setTimeout(answer, receiverMs);
      else answer();
      if (ids.size === events) resolveAll();
    });
  });
  try {
    await prepareDatabase(db, config, logger);
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    const admin = await db('users').orderBy('id').first('id', 'organization_id');
    const state = await db('directory_state').where({ id: 1 }).first('version');
    const base = Number(state.version) + 1_000_000 + Math.floor(Math.random() * 1_000_000);
    await db('webhook_state').update({ after_version: base, after_contact_id: 4_294_967_295 });
    // the hook of this run only (removed at the end, with its deliveries): a hook left from an
    // earlier run would point at a receiver that is gone and slow this run down with its retries
    await db('webhooks').delete();
    await db('webhooks').insert({ organization_id: null, url, events: JSON.stringify(['contact.*']), secret: 'whsec_' + Buffer.alloc(32, 7).toString('base64'), active: true, after_version: 0, created_at: new Date(), updated_at: new Date() });
    const at = new Date();
    for (let i = 0; i < events; i += 500) {
      const rows = [];
      for (let j = i; j < Math.min(events, i + 500); j++) rows.push({ version: base + 1 + j, contact_id: admin.id, type: 'updated', organization_id: admin.organization_id, at });
      await db('contact_changes').insert(rows);
    }
    const dispatcher = new WebhookDispatcher({ db, feed: new ChangeFeed({ db }), settings: config.webhooks });
    const started = process.hrtime.bigint();
    let fanned = 0;
    while (fanned < events) fanned += await dispatcher.fanOut();
    const fanOutS = Number(process.hrtime.bigint() - started) / 1e9;
    dispatcher.start();
    await all;
    const totalS = Number(process.hrtime.bigint() - started) / 1e9;
    await dispatcher.stop();
    console.warn(JSON.stringify({
      database: config.db.client,
      events,
      receiver_ms: receiverMs,
      fan_out_per_s: Math.round(events / fanOutS),
      delivered_per_s: Math.round(events / totalS),
      seconds: Number(totalS.toFixed(2)),
      requests: seen,
      duplicates: seen - ids.size,
    }));
  } finally {
    receiver.close();
    await db('contact_changes').where('version', '>', 1_000_000).delete().catch(() => undefined);
    await db('webhooks').delete().catch(() => undefined);
    await db.destroy();
    for (const suffix of ['', '-wal', '-shm']) fs.rmSync(sqlite + suffix, { force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});

/**
 * npm run soak [-- --duration 30] [--contacts 20000] [--connections 20] [--service-heap-mb 384]
 *
 * The mixed-load check (README, "Operations"; CI runs it for 30 s on MariaDB): the built service
 * on the configured database, filled with the demo directory first when it holds fewer contacts
 * than asked, as a deployment runs it (NODE_ENV=production, the heap capped), and 20 connections
 * sending one fixed mix for `--duration` seconds: reads by id, listings, the listing's search,
 * the search endpoint, statistics, children, updates, moves, deletes and small imports.
 *
 * It fails (exit 1) on any 5xx answer, on any request that takes more than 5 s, and on a directory
 * that breaks an invariant afterwards: every derived column is checked against its rows
 * (checkDirectory: no cycle, order keys, depths, sort names, search grams), and every update that
 * was answered 200 is read back through the API. Each connection updates contacts of its own, so
 * the last update answered for a contact is the one that must be read. The figures are printed
 * and written to bench/results/<time>-soak-<database>.json.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { config as loadEnv } from 'dotenv';
import { loadConfig } from '../src/config';
import { createDb, ensureDatabase, type Db } from '../src/lib/db';
import { createLogger } from '../src/lib/logger';
import { prepareDatabase } from '../src/startup';
import { checkDirectory, directorySound, FINDINGS } from '../src/modules/contacts';
import { prng } from '../scripts/demo-data';
import { analyze, seedDemo } from '../scripts/seed-demo';
import { freePort, indexBuilt, serviceEnv, signIn, start } from './load';
import { pickTargets } from './targets';
import { cleanUpTransfer, prepareTransfer } from './transfer';

loadEnv({ quiet: true });

interface Args {
  duration: number;
  contacts: number;
  connections: number;
  serviceHeapMb: number;
}

function parseArgs(argv: string[]): Args {
  const args: Args = { duration: 30, contacts: 20_000, connections: 20, serviceHeapMb: 384 };
  for (let i = 0; i < argv.length; i += 2) {
    const [key, value] = [argv[i], Number(argv[i + 1])];
    if (!Number.isFinite(value) || value < 0) throw new Error(`${key} takes a number`);
    if (key === '--duration') args.duration = value;
    else if (key === '--contacts') args.contacts = value;
    else if (key === '--connections') args.connections = value;
    else if (key === '--service-heap-mb') args.serviceHeapMb = value;
    else throw new Error(`unknown option ${key}`);
  }
  return args;
}

/** The mix, in the order each connection sends it, again and again. */
const MIX = ['get', 'list search', 'update', 'search', 'get', 'move', 'list', 'statistics', 'get', 'update', 'children', 'list search', 'search', 'move', 'get', 'delete', 'update', 'import'] as const;
type Kind = (typeof MIX)[number];
/** A request slower than this fails the check. */
const SLOW_MS = 5000;
/** Contacts each connection updates. */
const UPDATED_PER_CONNECTION = 5;

function rssMb(pid: number): number | null {
  try {
    const kb = Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
    return kb ? Math.round(kb / 1024) : null;
  } catch {
    return null; // not Linux, or the process is gone
  }
}

async function seeded(db: Db, contacts: number): Promise<void> {
  const [{ n }] = await db('users').count({ n: '*' });
  if (Number(n) < contacts * 0.9) {
    process.stderr.write(`the directory holds ${n} contacts; adding ${contacts} (npm run seed:demo)\n`);
    await seedDemo(db, { contacts, failedLogins: 0, auditEvents: 0, seed: 42 });
    await analyze(db);
  }
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const config = loadConfig(process.env);
  await ensureDatabase(config.db);
  const db = createDb({ ...config.db, queryTimeoutMs: 0 });
  await prepareDatabase(db, config, createLogger({ level: 'warn' }));
  await seeded(db, args.contacts);
  const t = await pickTargets(db);
  const runTag = `SK${Date.now().toString(36)}`;
  const importUnit = await prepareTransfer(db, runTag);

  // disjoint sets: leaves that move, leaves that are deleted, contacts each connection updates
  const half = Math.floor(t.moveLeaves.length / 2);
  const movers = t.moveLeaves.slice(0, half);
  const doomed = t.moveLeaves.slice(half);
  const taken = new Set([...t.moveLeaves, ...t.moveParents]);
  const updatable = t.contactIds.filter((id) => !taken.has(id));
  if (updatable.length < args.connections * UPDATED_PER_CONNECTION || movers.length === 0) throw new Error('the directory is too small for the mix');

  const port = await freePort();
  const env = serviceEnv(config.admin, port);
  const url = `http://127.0.0.1:${port}`;
  const service = await start(process.execPath, [`--max-old-space-size=${args.serviceHeapMb}`, 'dist/src/server.js'], env, `${url}/ready`);
  const failures: string[] = [];
  try {
    await indexBuilt(url);
    const token = await signIn(url, config.admin);
    const rssStart = rssMb(service.pid!);

    const random = prng(29);
    const any = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)];
    // A connection's requests go through the mix in order, with a context that autocannon resets
    // at the start of each pass. Each pass leases a slot (its own contacts to update) and gives it
    // back with its last answer, so that no two updates of one contact are ever in flight at once.
    const freeSlots: number[] = [];
    let slots = 0;
    let serial = 0;
    /** per contact, the phone of the last update answered 200, and of one sent and not answered (cut by the end of the run: it may have committed) */
    const acknowledged = new Map<number, string>();
    const unanswered = new Map<number, string>();
    const byKind = new Map<Kind, { sent: number; status5xx: number; ms: number[] }>(MIX.map((k) => [k, { sent: 0, status5xx: 0, ms: [] }]));
    type Context = { slot?: number; id?: number; phone?: string; sentAt?: number };
    const json = (method: string, path: string, body: unknown) => ({ method, path, body: JSON.stringify(body), headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' } });
    const get = (path: string) => ({ method: 'GET', path, headers: { authorization: `Bearer ${token}` } });

    const next = (kind: Kind, c: Context) => {
      c.slot ??= freeSlots.pop() ?? slots++;
      // autocannon builds a request as it sends it (one in flight per connection)
      c.sentAt = performance.now();
      byKind.get(kind)!.sent++;
      const n = ++serial;
      switch (kind) {
        case 'get':
          return get(`/api/contacts/${any(t.contactIds)}`);
        case 'list':
          return get(`/api/contacts?unit_id=${any([t.largestUnitId, importUnit.unitId])}&page=${1 + (n % 5)}`);
        case 'list search':
          return get(`/api/contacts?search=${encodeURIComponent(any(t.searchTerms))}`);
        case 'search':
          return get(`/api/contacts/search?q=${encodeURIComponent(any(t.searchTerms))}`);
        case 'statistics':
          return get('/api/contacts/statistics');
        case 'children':
          return get(`/api/contacts/${any(t.moveParents)}/children`);
        case 'update': {
          const mine = updatable.slice(c.slot * UPDATED_PER_CONNECTION, (c.slot + 1) * UPDATED_PER_CONNECTION);
          if (mine.length === 0) throw new Error('more passes at once than contacts to update');
          c.id = any(mine);
          c.phone = `01${String(n).padStart(9, '0')}`;
          unanswered.set(c.id, c.phone);
          return json('PUT', `/api/contacts/${c.id}`, { phone: c.phone });
        }
        case 'move':
          return json('PUT', `/api/contacts/${any(movers)}/move`, { parent_id: any(t.moveParents) });
        case 'delete':
          return { method: 'DELETE', path: `/api/contacts/${any(doomed)}`, headers: { authorization: `Bearer ${token}` } };
        case 'import': {
          const rows = [0, 1, 2].map((i) => `Soak ${runTag} ${n}-${i},${runTag}-${n}-${i},${runTag.toLowerCase()}-${n}-${i}@soak.test,01700000000,${importUnit.unitCode},${importUnit.designation},`);
          return { method: 'POST', path: '/api/contacts/import', body: `name,service_no,email,phone,unit,designation,parent_service_no\n${rows.join('\n')}\n`, headers: { authorization: `Bearer ${token}`, 'content-type': 'text/csv' } };
        }
      }
    };

    const result = await autocannon({
      url,
      connections: args.connections,
      duration: args.duration,
      timeout: SLOW_MS / 1000,
      requests: MIX.map((kind, step) => ({
        setupRequest: (_req: autocannon.Request, context: Context) => next(kind, context) as autocannon.Request,
        onResponse: (status: number, _body: string, context: Context) => {
          const figures = byKind.get(kind)!;
          if (status >= 500) figures.status5xx++;
          figures.ms.push(performance.now() - context.sentAt!);
          if (kind === 'update') unanswered.delete(context.id!);
          if (kind === 'update' && status === 200) acknowledged.set(context.id!, context.phone!);
          if (step === MIX.length - 1 && context.slot !== undefined) {
            freeSlots.push(context.slot);
            context.slot = undefined;
          }
        },
      })),
    });
    const rssEnd = rssMb(service.pid!);

    // every acknowledged update is what a read gives
    const unreadable: string[] = [];
    for (const [id, phone] of acknowledged) {
      const res = await fetch(`${url}/api/contacts/${id}`, { headers: { authorization: `Bearer ${token}` } });
      const read = res.ok ? ((await res.json()) as { data: { contact: { phone: string } } }).data.contact.phone : null;
      if (read !== phone && read !== unanswered.get(id)) unreadable.push(`${id}: ${phone} acknowledged, ${read} read`);
    }
    // the imports' grams are written after they answer (the search backlog): wait for them
    for (let waited = 0; waited < 60_000 && Number((await db('contact_search_backlog').count({ n: '*' }))[0].n) > 0; waited += 200) {
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const report = await checkDirectory(db);

    const figures = {
      machine: `${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB`,
      database: config.db.client,
      contacts: report.contacts,
      duration_s: args.duration,
      connections: args.connections,
      requests: result.requests.total,
      requests_per_s: Math.round(result.requests.average),
      p50_ms: result.latency.p50,
      p99_ms: result.latency.p99,
      max_ms: result.latency.max,
      status_5xx: result['5xx'],
      timeouts: result.timeouts,
      errors: result.errors,
      non_2xx: result.non2xx,
      // each kind's answers: how many, how many 5xx, the median and p99 of their times
      by_kind: Object.fromEntries(
        [...byKind].map(([kind, f]) => {
          const ms = f.ms.sort((a, b) => a - b);
          const at = (q: number) => Math.round(ms[Math.min(ms.length - 1, Math.floor(q * ms.length))] ?? 0);
          return [kind, { answered: ms.length, status_5xx: f.status5xx, p50_ms: at(0.5), p99_ms: at(0.99) }];
        }),
      ),
      updates_checked: acknowledged.size,
      updates_unreadable: unreadable.length,
      rss_mb: { start: rssStart, end: rssEnd },
      directory: Object.fromEntries(FINDINGS.map((kind) => [kind, report[kind].count])),
    };
    process.stdout.write(`${JSON.stringify(figures, null, 2)}\n`);
    const file = path.join('bench', 'results', `${new Date().toISOString().replace(/[:.]/g, '-')}-soak-${config.db.client}.json`);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, `${JSON.stringify(figures, null, 2)}\n`);
    process.stdout.write(`written to ${file}\n`);
    if (result['5xx'] > 0) failures.push(`${result['5xx']} answers were 5xx`);
    if (result.timeouts > 0 || result.latency.max > SLOW_MS) failures.push(`a request took more than ${SLOW_MS} ms (max ${result.latency.max} ms, ${result.timeouts} timed out)`);
    if (result.errors > result.timeouts) failures.push(`${result.errors - result.timeouts} requests failed to connect or were cut`);
    if (unreadable.length > 0) failures.push(`${unreadable.length} of ${acknowledged.size} acknowledged updates read back otherwise (${unreadable.slice(0, 5).join('; ')})`);
    if (acknowledged.size === 0) failures.push('no update was acknowledged');
    if (!directorySound(report)) failures.push(`the directory breaks an invariant: ${FINDINGS.filter((k) => report[k].count > 0).map((k) => `${k} ${report[k].ids.join(',')}`).join('; ')}`);
  } finally {
    service.kill('SIGTERM');
    await cleanUpTransfer(db, importUnit.unitId);
    await db.destroy();
  }
  if (failures.length > 0) {
    process.stderr.write(`soak: FAILED\n${failures.map((f) => `- ${f}`).join('\n')}\n`);
    process.exitCode = 1;
  } else {
    process.stdout.write('soak: passed (no 5xx, no request past 5 s, every invariant holds, every acknowledged update read back)\n');
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`soak: ${err instanceof Error ? err.stack ?? err.message : String(err)}\n`);
  process.exit(1);
});

import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { ProbeData, ProbeResults } from './import-probes';
import type { Db } from '../src/lib/db';
import { contactGrams, SEARCH_FIELDS } from '../src/modules/contacts';
import { prng } from '../scripts/demo-data';

/**
 * The import and export scenarios (docs/performance.md): the whole directory exported as CSV
 * and as .xlsx; then a file of `rows` contacts for a unit of its own, a tree 10 levels deep
 * (each row under one of the rows before it, three children each), shuffled, imported through
 * POST /api/contacts/import while get by id and GET /health run beside it. Afterwards the unit and its
 * contacts are removed from the database, so that each run starts from the same directory.
 */

export interface TransferFigures {
  name: string;
  target: string;
  rows: number;
  seconds: number;
  rows_per_s: number;
  status: number;
  bytes: number;
  /** get by id while the import ran (two connections, each request after the last) */
  beside?: ProbeResults['beside'];
  /** GET /health sent every HEALTH_EVERY_MS while the import ran, whether or not the last has answered */
  health?: { requests: number; p50_ms: number; p99_ms: number; max_ms: number; over_100ms: number; failed: number };
  /** an import: seconds from its answer until the search backlog was drained (its grams written) */
  grams_after_s?: number;
}

/** A CSV of `rows` contacts in `unitCode`: a ternary tree (ten levels for 100,000 rows), in shuffled order. */
export function treeCsv(rows: number, unitCode: string, designation: string, runTag: string): string {
  const random = prng(11);
  const sn = (i: number) => `${runTag}-${i}`;
  const lines = Array.from({ length: rows }, (_, i) => {
    const parent = i === 0 ? '' : sn(Math.floor((i - 1) / 3));
    return [`Person ${i} ${runTag}`, sn(i), `${sn(i).toLowerCase()}@bench.test`, '01700000000', unitCode, designation, parent].join(',');
  });
  for (let i = lines.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [lines[i], lines[j]] = [lines[j], lines[i]];
  }
  return `name,service_no,email,phone,unit,designation,parent_service_no\n${lines.join('\n')}\n`;
}

/** A unit of the run's own, and a designation's name. */
export async function prepareTransfer(db: Db, runTag: string): Promise<{ unitId: number; unitCode: string; designation: string }> {
  const now = new Date();
  const [unitId] = await db('units').insert({ name: `Bench import ${runTag}`, code: runTag, created_at: now, updated_at: now });
  const designation = String((await db('designations').orderBy('id').first('name')).name);
  return { unitId: Number(unitId), unitCode: runTag, designation };
}

/**
 * Removes what the scenarios wrote: the unit's contacts, their search grams, the unit. The grams
 * are deleted by key (gram, contact): the table has no index on the contact alone (its migration).
 */
export async function cleanUpTransfer(db: Db, unitId: number): Promise<void> {
  const rows = await db('users').where({ unit_id: unitId }).select('id', ...SEARCH_FIELDS);
  const pairs = rows.flatMap((r) => contactGrams(r).map((gram) => [gram, Number(r.id)]));
  for (let i = 0; i < pairs.length; i += 2000) {
    const chunk = pairs.slice(i, i + 2000);
    await db.raw(`DELETE FROM contact_search_grams WHERE (gram, contact_id) IN (${chunk.map(() => '(?, ?)').join(',')})`, chunk.flat());
  }
  const ids = rows.map((r) => Number(r.id));
  for (let i = 0; i < ids.length; i += 1000) await db('users').whereIn('id', ids.slice(i, i + 1000)).update({ parent_id: null });
  for (let i = 0; i < ids.length; i += 1000) await db('users').whereIn('id', ids.slice(i, i + 1000)).delete();
  await db('units').where({ id: unitId }).delete();
}

/** How often the health probe asks: at a fixed rate, so a stalled event loop shows as the time each waited. */
const HEALTH_EVERY_MS = 20;

type BesideFigures = Pick<TransferFigures, 'beside' | 'health'>;

/**
 * Starts get by id (`paths`, in turn) and the health probe beside the import, in a worker thread
 * of their own (import-probes.ts), so that only the service's stalls are timed; gives a function
 * that stops them and gives their figures.
 */
async function probeBeside(url: string, token: string, paths: string[]): Promise<() => Promise<Required<BesideFigures>>> {
  // a TypeScript file: the worker loads tsx's require hook first, as the bench runs under tsx
  const data: ProbeData = { url, token, paths, everyMs: HEALTH_EVERY_MS };
  const worker = new Worker(path.join(__dirname, 'import-probes.ts'), { workerData: data, execArgv: ['--require', 'tsx/cjs'] });
  const message = <T>() =>
    new Promise<T>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
  // started (its code compiled) before the import is sent
  await message<'asking'>();
  return async () => {
    const done = message<ProbeResults>();
    worker.postMessage('stop');
    const { beside, times, failed } = await done;
    await worker.terminate();
    times.sort((a, b) => a - b);
    const at = (q: number) => Math.round(times[Math.min(times.length - 1, Math.floor(q * times.length))] ?? 0);
    // one stall of a second holds some 50 probes: the count over 100 ms adds up every stall
    const health = { requests: times.length, p50_ms: at(0.5), p99_ms: at(0.99), max_ms: at(1), over_100ms: times.filter((t) => t > 100).length, failed };
    return { beside, health };
  };
}

/**
 * Imports `csv` while get by id (`getByIdPaths`, in turn) and a health probe run beside it, then
 * waits (polling `backlogSize`) until the service has written the new contacts' search grams,
 * which it does after answering.
 */
export async function runImport(
  url: string,
  token: string,
  csv: string,
  rows: number,
  getByIdPaths: string[],
  backlogSize: () => Promise<number>,
): Promise<TransferFigures> {
  const stopProbes = await probeBeside(url, token, getByIdPaths);
  const started = performance.now();
  const res = await fetch(`${url}/api/contacts/import`, {
    method: 'POST',
    headers: { 'content-type': 'text/csv', authorization: `Bearer ${token}` },
    body: csv,
    signal: AbortSignal.timeout(600_000),
  });
  const body = await res.text();
  const seconds = (performance.now() - started) / 1000;
  const { beside, health } = await stopProbes();
  if (!res.ok) throw new Error(`import answered ${res.status}: ${body.slice(0, 500)}`);
  const answered = performance.now();
  while ((await backlogSize()) > 0) {
    if (performance.now() - answered > 600_000) throw new Error('the search backlog was not drained in 10 minutes');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    name: `import ${rows} rows (tree, 10 levels)`,
    target: '≥ 5,000 rows/s',
    rows,
    seconds: Math.round(seconds * 10) / 10,
    rows_per_s: Math.round(rows / seconds),
    status: res.status,
    bytes: Buffer.byteLength(csv),
    beside,
    health,
    grams_after_s: Math.round((performance.now() - answered) / 100) / 10,
  };
}

/** The whole directory's active contacts as a file; an .xlsx is taken to hold `expectedRows`. */
export async function runExport(url: string, token: string, format: 'csv' | 'xlsx', expectedRows: number): Promise<TransferFigures> {
  const started = performance.now();
  const res = await fetch(`${url}/api/contacts/export?format=${format}`, {
    headers: { authorization: `Bearer ${token}` },
    signal: AbortSignal.timeout(600_000),
  });
  const file = Buffer.from(await res.arrayBuffer());
  const seconds = (performance.now() - started) / 1000;
  if (!res.ok) throw new Error(`export answered ${res.status}`);
  // the CSV's lines are counted
  const rows = format === 'csv' ? file.toString('utf8').split('\n').filter((l) => l.trim() !== '').length - 1 : expectedRows;
  return {
    name: `export ${rows} rows (${format})`,
    target: format === 'csv' ? '≥ 20,000 rows/s' : '',
    rows,
    seconds: Math.round(seconds * 10) / 10,
    rows_per_s: Math.round(rows / seconds),
    status: res.status,
    bytes: file.length,
  };
}

/**
 * Deep pages and big unit trees (issue 27, items 2 and 4), timed one request at a time on a
 * service started as deployed (heap capped at 384 MiB):
 *
 *   DB_CLIENT=mysql DB_NAME=wt_deep_bench npx tsx bench/big-lists.ts [--depth 10000] [--stream-from 5000] [--runs 20]
 *
 * Seed the database first (npm run seed:demo -- --contacts 1000000: its largest unit holds a
 * tenth). The service runs with SEARCH_INDEX=sql, so that the index of a million contacts (item 1
 * of the issue, another piece of work) does not decide whether it starts; the listing's counters
 * then come from SQL, cached per directory version (the first request counts, the others reuse).
 *
 * For each list: the median and the slowest of `runs` requests after one to warm up. For the unit
 * tree: time to the first byte of the body, to the last, and the service's peak RSS meanwhile.
 */
import { config as loadEnv } from 'dotenv';
import { loadConfig } from '../src/config';
import { createDb } from '../src/lib/db';
import { unfilteredListCursor } from '../src/modules/contacts';
import { freePort, peakRss, serviceEnv, signIn, start, timed } from './load';

loadEnv({ quiet: true });

const arg = (name: string, fallback: number) => {
  const at = process.argv.indexOf(`--${name}`);
  return at > 0 ? Number(process.argv[at + 1]) : fallback;
};

async function main() {
  const config = loadConfig();
  const db = createDb(config.db);
  // what to ask for: the default listing's place half a million rows down, the widest node, the largest unit
  const deepRow = await db('users').where('is_active', true).orderBy('tree_ord').offset(499_899).first('id', 'tree_ord');
  const wide = await db('users').whereNotNull('parent_id').groupBy('parent_id').orderByRaw('count(*) desc').first('parent_id', db.raw('count(*) as n'));
  const unit = await db('users').groupBy('unit_id').orderByRaw('count(*) desc').first('unit_id', db.raw('count(*) as n'));
  await db.destroy();
  const listCursor = unfilteredListCursor(Number(deepRow.id), Number(deepRow.tree_ord));

  const port = await freePort();
  const env = {
    ...serviceEnv(config.admin, port),
    SEARCH_INDEX: 'sql',
    LIST_PAGE_DEPTH: String(arg('depth', 10_000)),
    UNIT_TREE_STREAM_FROM: String(arg('stream-from', 5_000)),
  };
  const service = await start(process.execPath, ['--max-old-space-size=384', '--import', 'tsx', 'src/server.ts'], env, `http://127.0.0.1:${port}/ready`);
  try {
    const base = `http://127.0.0.1:${port}`;
    const token = await signIn(base, config.admin);
    const runs = arg('runs', 20);
    const lists: Array<[string, string]> = [
      ['list flat, page 1 (limit 100)', '/api/contacts?format=flat&limit=100'],
      ['list flat, page 5000 (limit 100)', '/api/contacts?format=flat&limit=100&page=5000'],
      ['list flat, page 100 (limit 100: the deepest in reach)', '/api/contacts?format=flat&limit=100&page=100'],
      ['list flat, the last page (limit 100)', '/api/contacts?format=flat&limit=100&page=10000'],
      ['list flat, cursor at row 499,900 (limit 100)', `/api/contacts?format=flat&limit=100&cursor=${listCursor}`],
      [`children of the widest node (${wide.n}), page 1`, `/api/contacts/${wide.parent_id}/children`],
    ];
    for (const [name, path] of lists) {
      await timed(`${base}${path}`, token);
      const times: number[] = [];
      let status = 0;
      for (let i = 0; i < runs; i++) {
        const r = await timed(`${base}${path}`, token);
        times.push(r.total_ms);
        status = r.status;
      }
      times.sort((a, b) => a - b);
      console.warn(`${name}: ${status}, median ${times[Math.floor(runs / 2)].toFixed(1)} ms, slowest ${times[runs - 1].toFixed(1)} ms`);
    }
    for (const format of ['tree', 'flat', 'hierarchical']) {
      for (const gzip of [false, true]) {
        const path = `/api/contacts/unit/${unit.unit_id}?format=${format}`;
        const headers: Record<string, string> = { 'accept-encoding': gzip ? 'gzip' : 'identity' };
        const { result, peakMb } = await peakRss(service.pid!, () => timed(`${base}${path}`, token, headers));
        const again = await timed(`${base}${path}`, token, headers);
        console.warn(
          `unit tree (${unit.n} contacts, ${format}${gzip ? ', gzip' : ''}): ${result.status}, first byte ${result.first_ms.toFixed(0)} ms, ` +
            `all ${result.total_ms.toFixed(0)} ms, ${(result.bytes / 1e6).toFixed(1)} MB; again: first byte ${again.first_ms.toFixed(0)} ms, ` +
            `all ${again.total_ms.toFixed(0)} ms; peak RSS ${peakMb} MiB`,
        );
      }
    }
  } finally {
    service.kill('SIGTERM');
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

/**
 * What the in-memory search index of the current database holds (issue 27): builds one snapshot
 * and prints its heap, its array buffers (the typed arrays: postings and columns) and the growth
 * of the process's RSS during the build; then the CPU time of 1,500 searches of it (500 names
 * picked at random with a fixed seed, each as its first two letters, its first four and five
 * letters of its last word), each way of walking it, each term walked twice scanned for its
 * rarest byte and twice for its first (matching.ts bytesInclude), in turns, three rounds, and of 100 listings' pages
 * 1000 of 100 without a search (the deepest a page number reaches), three times. CPU time, not
 * the wall clock, which a shared machine makes vary twofold. Run with the GC exposed, so the
 * figures are retained memory:
 *
 *   DB_CLIENT=mysql DB_NAME=directory_bench node --expose-gc --import tsx bench/index-memory.ts
 *
 * With `--bench-terms` the searches are the 2,000 terms of `npm run bench` (bench/targets.ts:
 * four to seven characters of names, e-mails, service numbers and phones) instead.
 */
import os from 'node:os';
import { loadConfig } from '../src/config';
import { pickTargets } from './targets';
import { createDb } from '../src/lib/db';
// the bench measures the snapshot itself, which the contacts module keeps inside
// eslint-disable-next-line import-x/no-restricted-paths
import { conditionsOf } from '../src/modules/contacts/domain/filters';
// eslint-disable-next-line import-x/no-restricted-paths
import { loadSnapshot } from '../src/modules/contacts/search/columns';
// eslint-disable-next-line import-x/no-restricted-paths
import type { SearchSnapshot } from '../src/modules/contacts/search/snapshot';
// eslint-disable-next-line import-x/no-restricted-paths
import { SearchView } from '../src/modules/contacts/search/view';

const MiB = 2 ** 20;
const gc = (globalThis as { gc?: () => void }).gc;

async function main(): Promise<void> {
  if (!gc) throw new Error('run node with --expose-gc');
  const db = createDb(loadConfig().db);
  try {
    gc();
    const before = process.memoryUsage();
    let peakRss = before.rss;
    const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 20);
    const started = Date.now();
    const snapshot = await loadSnapshot(db);
    const ms = Date.now() - started;
    clearInterval(sampler);
    gc();
    await new Promise((resolve) => setTimeout(resolve, 500));
    gc();
    const after = process.memoryUsage();
    console.warn(`${os.cpus().length} CPUs (${os.cpus()[0]?.model}), Node ${process.version}; ${snapshot.size} contacts, built in ${ms} ms`);
    console.warn(`retained: heap ${((after.heapUsed - before.heapUsed) / MiB).toFixed(1)} MiB, array buffers ${((after.arrayBuffers - before.arrayBuffers) / MiB).toFixed(1)} MiB`);
    console.warn(`RSS: +${((peakRss - before.rss) / MiB).toFixed(0)} MiB at the build's peak, +${((after.rss - before.rss) / MiB).toFixed(0)} MiB after it`);
    await searchCpu(db, snapshot);
  } finally {
    await db.destroy();
  }
}

/** The CPU time of the search endpoint's walk (ranked) and the listing's (matchRanks, page 1) over 1,500 terms; of deep pages (listingWindow). */
async function searchCpu(db: ReturnType<typeof createDb>, snapshot: SearchSnapshot): Promise<void> {
  const random = db.client.config.client === 'mysql2' ? 'rand(7)' : 'random()';
  const names: string[] = (await db('users').orderByRaw(random).limit(500).pluck('name')).map((n: string) => n.toLowerCase());
  // --bench-terms: the 2,000 terms of `npm run bench` (bench/targets.ts) instead
  const terms = process.argv.includes('--bench-terms')
    ? (await pickTargets(db)).searchTerms.map((t) => t.toLowerCase())
    : names.flatMap((n) => [n.slice(0, 2), n.slice(0, 4), n.split(' ').pop()!.slice(0, 5)]).filter((t) => t.length >= 2);
  const filters = { role_filter: 'all', include_inactive: false } as const;
  const all = conditionsOf(filters);
  // each term is walked both ways in turn, in the order ABBA or BAAB (alternating from term to
  // term): scanned for its rarest byte (the walks' way) and for its first (the byte counts
  // zeroed in place, so that every byte ties and the first is taken). A machine whose speed
  // drifts over seconds favours neither, as whole rounds one way, then the other, would.
  const { byteCounts } = snapshot.data.columns.texts;
  const counted = Uint32Array.from(byteCounts);
  const none = new Uint32Array(256);
  const cpu = () => process.cpuUsage().user;
  const spent = { rarest: { ranked: 0, listed: 0 }, first: { ranked: 0, listed: 0 } };
  for (let round = 1; round <= 3; round++) {
    for (const [i, term] of terms.entries()) {
      const turns = (i + round) % 2 === 0 ? (['rarest', 'first', 'first', 'rarest'] as const) : (['first', 'rarest', 'rarest', 'first'] as const);
      for (const anchor of turns) {
        byteCounts.set(anchor === 'rarest' ? counted : none);
        let started = cpu();
        snapshot.ranked(term, all, 20);
        spent[anchor].ranked += cpu() - started;
        started = cpu();
        // as a listing's page 1 of 100 asks
        snapshot.matchRanks(term, all, undefined, 100);
        spent[anchor].listed += cpu() - started;
      }
    }
    const per = (us: number) => (us / (2 * round * terms.length) / 1e3).toFixed(3);
    console.warn(
      `${terms.length} terms, ${round} round(s), ms of CPU a walk: the search endpoint's ${per(spent.rarest.ranked)} scanning for the rarest byte, ${per(spent.first.ranked)} for the first; the listing's ${per(spent.rarest.listed)} and ${per(spent.first.listed)}`,
    );
  }
  byteCounts.set(counted);
  // a listing's deepest page by number, without a search (LIST_PAGE_DEPTH rows down)
  const view = new SearchView(snapshot, null);
  for (let round = 0; round < 3; round++) {
    const started = process.cpuUsage();
    for (let i = 0; i < 100; i++) view.listingWindow(filters, undefined, { offset: 99_900, limit: 100 });
    console.warn(`100 pages 1000 of 100 (no search): ${(process.cpuUsage(started).user / 1e3).toFixed(0)} ms of CPU`);
  }
}

void main();

import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { conditionsOf } from '../../src/modules/contacts/domain/filters';
import { loadSnapshot } from '../../src/modules/contacts/search/columns';
import type { SearchSnapshot } from '../../src/modules/contacts/search/snapshot';
import { walkOn, Walkers, type Walk, type WalkedOn } from '../../src/modules/contacts/search/walkers';
import { setupOwnTestContext } from '../helpers/context';
import { plainWalk as plain } from './contacts-support';
import { createUnit, createUser, unique } from '../helpers/factory';

/**
 * The walk threads (search/walkers.ts): a walk posted to a thread answers what the same walk
 * answers in this thread, over whichever snapshot it names, and a walk whose thread fails is
 * answered here and reported. What the walks answer is proven against SQL by
 * list-search-index.test.ts (in this thread and on a walk thread) and, through HTTP, by the
 * search suites (endpoints-search-threads.test.ts among them).
 */

const ctx = setupOwnTestContext('walkers');
const ACTIVE = conditionsOf({ role_filter: 'all', include_inactive: false });
const tag = unique('walk').toLowerCase();
let unitId: number;
/** the test's contacts, in the order made */
const tagged: number[] = [];

/**
 * Walks of both kinds over the test's contacts: ranked, a listing's page with a slot skipped, a
 * listing's whole set in a unit and of one role, and one within a range of order keys (a
 * subtree's) that holds some of them.
 */
function walksOver(snapshot: SearchSnapshot): Walk[] {
  const skip = Int32Array.of(snapshot.slotOf(snapshot.idAt(0)));
  const ords = tagged.slice(0, 4).map((id) => snapshot.treeOrdAt(snapshot.slotOf(id)));
  const range = { after: Math.min(...ords) - 1, before: Math.max(...ords) + 1 };
  return [
    { walk: 'ranked', needle: tag, conditions: ACTIVE, limit: 3 },
    { walk: 'ranked', needle: tag.slice(0, 2), conditions: [], limit: 100, skip },
    { walk: 'matched', needle: tag, conditions: ACTIVE, skip, upTo: 4 },
    { walk: 'matched', needle: tag, conditions: conditionsOf({ role_filter: 'user', include_inactive: false, unit_id: unitId }) },
    { walk: 'matched', needle: tag, conditions: conditionsOf({ role_filter: 'all', include_inactive: true }, range) },
  ];
}


beforeAll(async () => {
  unitId = (await createUnit(ctx)).id;
  for (let i = 0; i < 8; i++) tagged.push((await createUser(ctx, { unit_id: unitId, name: `${i % 2 ? 'Ana' : 'Bo'} ${tag} ${i}` })).id);
});

describe('search walk threads', () => {
  test('a walk on a thread answers as in this thread, over three snapshots in turn and the first again (a thread keeps two: it is sent again)', async () => {
    const errors: unknown[] = [];
    const walked: WalkedOn[] = [];
    const walkers = new Walkers({ threads: 1, from: 0 }, { onError: (err) => errors.push(err), onWalk: (on) => walked.push(on) });
    try {
      const snapshots = [await loadSnapshot(ctx.db), await loadSnapshot(ctx.db), await loadSnapshot(ctx.db)];
      let matched = 0;
      for (const snapshot of [...snapshots, snapshots[0], snapshots[2]]) {
        for (const walk of walksOver(snapshot)) {
          const here = walkOn(snapshot, walk, null).result;
          expect(plain(await walkers.run(snapshot, walk))).toEqual(plain(here));
          matched += 'total' in here ? here.total : 0;
        }
      }
      // the walks found the test's contacts, on the one thread, and none fell back to this one
      expect(matched).toBeGreaterThan(0);
      expect(walkers.running).toBe(1);
      expect(errors).toEqual([]);
      expect(walked).toEqual(Array(5 * walksOver(snapshots[0]).length).fill('thread'));
    } finally {
      await walkers.close();
    }
  });

  /**
   * A walk whose thread is stopped under it (before the thread has even started, so the walk is
   * still waiting in it), then `after` with the walkers, a snapshot and its walks; the errors reported.
   */
  async function afterAFailedWalk(restartAfterMs: number, after: (walkers: Walkers, snapshot: SearchSnapshot, walks: Walk[]) => Promise<void>): Promise<unknown[]> {
    const errors: unknown[] = [];
    const walked: WalkedOn[] = [];
    const walkers = new Walkers({ threads: 1, from: 0 }, { onError: (err) => errors.push(err), onWalk: (on) => walked.push(on) }, restartAfterMs);
    try {
      const snapshot = await loadSnapshot(ctx.db);
      const walks = walksOver(snapshot);
      const waiting = walkers.run(snapshot, walks[0]);
      await walkers.close();
      expect(plain(await waiting)).toEqual(plain(walkOn(snapshot, walks[0], null).result));
      expect(errors).toHaveLength(1);
      // the failed walk is reported as run in the service's thread, where it was answered
      expect(walked).toEqual(['service']);
      await after(walkers, snapshot, walks);
      return errors;
    } finally {
      await walkers.close();
    }
  }

  test('a walk whose thread stops under it is answered here and reported; the next walk after the pause starts a thread again', async () => {
    const errors = await afterAFailedWalk(0, async (walkers, snapshot, [walk]) => {
      expect(plain(await walkers.run(snapshot, walk))).toEqual(plain(walkOn(snapshot, walk, null).result));
      expect(walkers.running).toBe(1);
    });
    expect(errors).toHaveLength(1);
    expect(String(errors[0])).toMatch(/search walk thread/);
  });

  test('after a failed walk, walks run in this thread for the pause, and start no thread', async () => {
    const errors = await afterAFailedWalk(60_000, async (walkers, snapshot, walks) => {
      for (const walk of walks) expect(plain(await walkers.run(snapshot, walk))).toEqual(plain(walkOn(snapshot, walk, null).result));
      expect(walkers.running).toBe(0);
    });
    expect(errors).toHaveLength(1);
  });

  test('a snapshot smaller than `from` is walked in this thread, and starts none', async () => {
    const walked: WalkedOn[] = [];
    const walkers = new Walkers({ threads: 1, from: 1_000_000 }, { onWalk: (on) => walked.push(on) });
    const snapshot = await loadSnapshot(ctx.db);
    for (const walk of walksOver(snapshot)) expect(await walkers.run(snapshot, walk)).toEqual(walkOn(snapshot, walk, null).result);
    expect(walkers.running).toBe(0);
    expect(walked).toEqual(Array(walksOver(snapshot).length).fill('service'));
  });

  test("a walk thread loads the index's own files, the role ids and lru-cache, no other npm package and no database layer (its memory: docs/performance.md)", async () => {
    const entry = path.resolve(__dirname, '../../src/modules/contacts/search/walk-thread.ts');
    // the thread's entry as walkers.ts starts it from the sources, then the files it loaded
    const source = `require(${JSON.stringify(require.resolve('tsx/cjs'))}); require(${JSON.stringify(entry)});
      require('node:worker_threads').parentPort.postMessage(Object.keys(require.cache));`;
    const worker = new Worker(source, { eval: true, workerData: { keptBytes: 1 << 20 } });
    try {
      const loaded = await new Promise<string[]>((resolve, reject) => worker.once('message', resolve).once('error', reject));
      const root = path.resolve(__dirname, '../..') + path.sep;
      const ours = loaded.filter((file) => !/[/\\]node_modules[/\\](tsx|esbuild)[/\\]/.test(file)).map((file) => file.replace(root, ''));
      expect(ours).toContain('src/modules/contacts/search/walk-thread.ts');
      expect(ours).toContain('src/modules/contacts/search/kept-walks.ts');
      for (const file of ours) expect(file).toMatch(/^(src\/modules\/(contacts\/(search|domain)\/[\w-]+\.ts|access\/roles\.ts)|node_modules\/lru-cache\/.+)$/);
    } finally {
      await worker.terminate();
    }
  });
});

import { loadSnapshot } from '../../src/modules/contacts/search/columns';
import type { SearchSnapshot } from '../../src/modules/contacts/search/snapshot';
import { walkOn, Walkers, type Walk } from '../../src/modules/contacts/search/walkers';
import { setupOwnTestContext } from '../helpers/context';
import { createUnit, createUser, unique } from '../helpers/factory';

/**
 * The walk threads (search/walkers.ts): a walk posted to a thread answers what the same walk
 * answers in this thread, over whichever snapshot it names, and a walk whose thread fails is
 * answered here and reported. What the walks answer is proven against SQL by
 * list-search-index.test.ts (in this thread and on a walk thread) and, through HTTP, by the
 * search suites (endpoints-search-threads.test.ts among them).
 */

const ctx = setupOwnTestContext('walkers');
const ALL = { role_filter: 'all', include_inactive: false } as const;
const tag = unique('walk').toLowerCase();

/** Walks of both kinds over the test's contacts: ranked, a listing's page with a slot skipped, a listing's whole set. */
function walksOver(snapshot: SearchSnapshot): Walk[] {
  const skip = Int32Array.of(snapshot.slotOf(snapshot.idAt(0)));
  return [
    { walk: 'ranked', needle: tag, filters: ALL, limit: 3 },
    { walk: 'ranked', needle: tag.slice(0, 2), filters: { ...ALL, include_inactive: true }, limit: 100, skip },
    { walk: 'matched', needle: tag, filters: ALL, skip, upTo: 4 },
    { walk: 'matched', needle: tag, filters: { ...ALL, role_filter: 'user' } },
  ];
}

/**
 * A walk's answer as plain arrays: one posted from a thread is made outside this test file's
 * realm (jest runs it in a VM context), and toEqual tells such arrays apart by their realm.
 */
const plain = (answer: unknown) => JSON.parse(JSON.stringify(answer, (_key, value: unknown) => (ArrayBuffer.isView(value) ? Array.from(value as Int32Array) : value)));

beforeAll(async () => {
  const unit = await createUnit(ctx);
  for (let i = 0; i < 8; i++) await createUser(ctx, { unit_id: unit.id, name: `${i % 2 ? 'Ana' : 'Bo'} ${tag} ${i}` });
});

describe('search walk threads', () => {
  test('a walk on a thread answers as in this thread, over three snapshots in turn and the first again (a thread keeps two: it is sent again)', async () => {
    const errors: unknown[] = [];
    const walkers = new Walkers({ threads: 1, from: 0 }, (err) => errors.push(err));
    try {
      const snapshots = [await loadSnapshot(ctx.db), await loadSnapshot(ctx.db), await loadSnapshot(ctx.db)];
      let matched = 0;
      for (const snapshot of [...snapshots, snapshots[0], snapshots[2]]) {
        for (const walk of walksOver(snapshot)) {
          const here = walkOn(snapshot, walk);
          expect(plain(await walkers.run(snapshot, walk))).toEqual(plain(here));
          matched += 'total' in here ? here.total : 0;
        }
      }
      // the walks found the test's contacts, on the one thread, and none fell back to this one
      expect(matched).toBeGreaterThan(0);
      expect(walkers.running).toBe(1);
      expect(errors).toEqual([]);
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
    const walkers = new Walkers({ threads: 1, from: 0 }, (err) => errors.push(err), restartAfterMs);
    try {
      const snapshot = await loadSnapshot(ctx.db);
      const walks = walksOver(snapshot);
      const waiting = walkers.run(snapshot, walks[0]);
      await walkers.close();
      expect(plain(await waiting)).toEqual(plain(walkOn(snapshot, walks[0])));
      expect(errors).toHaveLength(1);
      await after(walkers, snapshot, walks);
      return errors;
    } finally {
      await walkers.close();
    }
  }

  test('a walk whose thread stops under it is answered here and reported; the next walk after the pause starts a thread again', async () => {
    const errors = await afterAFailedWalk(0, async (walkers, snapshot, [walk]) => {
      expect(plain(await walkers.run(snapshot, walk))).toEqual(plain(walkOn(snapshot, walk)));
      expect(walkers.running).toBe(1);
    });
    expect(errors).toHaveLength(1);
    expect(String(errors[0])).toMatch(/search walk thread/);
  });

  test('after a failed walk, walks run in this thread for the pause, and start no thread', async () => {
    const errors = await afterAFailedWalk(60_000, async (walkers, snapshot, walks) => {
      for (const walk of walks) expect(plain(await walkers.run(snapshot, walk))).toEqual(plain(walkOn(snapshot, walk)));
      expect(walkers.running).toBe(0);
    });
    expect(errors).toHaveLength(1);
  });

  test('a snapshot smaller than `from` is walked in this thread, and starts none', async () => {
    const walkers = new Walkers({ threads: 1, from: 1_000_000 });
    const snapshot = await loadSnapshot(ctx.db);
    for (const walk of walksOver(snapshot)) expect(await walkers.run(snapshot, walk)).toEqual(walkOn(snapshot, walk));
    expect(walkers.running).toBe(0);
  });
});

import { conditionsOf } from '../../src/modules/contacts/domain/filters';
import { loadSnapshot } from '../../src/modules/contacts/search/columns';
import { KeptWalks } from '../../src/modules/contacts/search/kept-walks';
import type { SearchSnapshot } from '../../src/modules/contacts/search/snapshot';
import { walkOn, type Walk } from '../../src/modules/contacts/search/walkers';
import { setupOwnTestContext } from '../helpers/context';
import { createUnit, createUser, unique } from '../helpers/factory';
import { plainWalk as plain } from './contacts-support';

/**
 * The walks kept over a snapshot (search/kept-walks.ts): each answer, from what was kept or
 * from a walk run again, equals the walk run afresh with the same skipped slots; a term is
 * walked again when what was kept falls short, and is kept for the next; the oldest walks go
 * when the bytes run out. That a fresh walk answers as SQL does is list-search-index.test.ts's,
 * which also runs its property test over kept walks.
 */

const ctx = setupOwnTestContext('keptwalks');
const ACTIVE = conditionsOf({ role_filter: 'all', include_inactive: false });
const tag = unique('kept').toLowerCase();
let snapshot: SearchSnapshot;
/** the slots of the test's matches: names that start with the tag (four), and names that hold it further in (six) */
let starting: number[];
let holding: number[];
/** a slot that matches nothing of the tag */
let other: number;


beforeAll(async () => {
  const unitId = (await createUnit(ctx)).id;
  const ids = { starting: [] as number[], holding: [] as number[] };
  for (let i = 0; i < 4; i++) ids.starting.push((await createUser(ctx, { unit_id: unitId, name: `${tag} Starts ${i}` })).id);
  for (let i = 0; i < 6; i++) ids.holding.push((await createUser(ctx, { unit_id: unitId, name: `Holds ${tag} ${i}` })).id);
  const outsider = (await createUser(ctx, { unit_id: unitId, name: `Nobody ${unique('n')}` })).id;
  snapshot = await loadSnapshot(ctx.db);
  const slots = (list: number[]) => list.map((id) => snapshot.slotOf(id)).sort((a, b) => a - b);
  starting = slots(ids.starting);
  holding = slots(ids.holding);
  other = snapshot.slotOf(outsider);
});

/** Asks `kept` for each walk in turn: each answer is the fresh walk's, and kept (or not) as `expected` says. */
function asks(kept: KeptWalks, walks: [Walk, boolean][]): void {
  for (const [walk, expected] of walks) {
    const answer = kept.run(snapshot, walk);
    expect({ walk: plain(walk), answer: plain(answer.result) }).toEqual({ walk: plain(walk), answer: plain(walkOn(snapshot, walk, null).result) });
    expect({ walk: plain(walk), kept: answer.kept }).toEqual({ walk: plain(walk), kept: expected });
  }
}

const ascending = (...slots: number[]) => Int32Array.from(slots.sort((a, b) => a - b));

describe('walks kept over a snapshot', () => {
  test("a listing's walk: kept, then walked again when the page reaches past what was kept beyond the skipped slots", () => {
    const matched = (upTo: number | undefined, skip?: Int32Array): Extract<Walk, { walk: 'matched' }> => ({ walk: 'matched', needle: tag, conditions: ACTIVE, upTo, skip });
    // the first of the set in the pre-order: the first of the ten made, the first that starts with the tag
    const first = snapshot.slotAtRank(walkOn(snapshot, matched(1), null).result.ranks[0]);
    asks(new KeptWalks(1 << 20), [
      [matched(2), false],
      [matched(2), true],
      // a slot that does not match takes nothing off; one of the two places kept does: walked again, three kept
      [matched(2, ascending(other)), true],
      [matched(2, ascending(other, first)), false],
      [matched(2, ascending(other, first)), true],
      [matched(1, ascending(first)), true],
      [matched(3), true],
      [matched(4), false],
      // the whole set: kept whole, so any page of it and any slots skipped are answered from it
      [matched(undefined), false],
      [matched(undefined, ascending(...holding)), true],
      [matched(9, ascending(first, ...holding.slice(2))), true],
      // other conditions, another walk
      [{ walk: 'matched', needle: tag, conditions: conditionsOf({ role_filter: 'admin', include_inactive: false }), upTo: 2 }, false],
    ]);
  });

  test("the search endpoint's walk: kept by rank, walked again when a rank it filled loses slots to the skipped", () => {
    const ranked = (limit: number, skip?: Int32Array): Walk => ({ walk: 'ranked', needle: tag, conditions: ACTIVE, limit, skip });
    asks(new KeptWalks(1 << 20), [
      // two of each rank kept; the rank of exact e-mails and service numbers is empty, so complete
      [ranked(2), false],
      [ranked(2), true],
      [ranked(1, ascending(starting[0], other)), true],
      // a filled rank that loses one of its two: walked again, with one more a rank
      [ranked(2, ascending(starting[0], other)), false],
      [ranked(2, ascending(starting[0])), true],
      [ranked(3), true],
      // past what was kept in both ranks
      [ranked(4), false],
      [ranked(4, ascending(holding[0], holding[1])), false],
      [ranked(4, ascending(holding[0], holding[1])), true],
      // four starting, six holding: a limit of seven keeps both ranks whole
      [ranked(7), false],
      [ranked(1, ascending(...starting, ...holding.slice(1))), true],
    ]);
  });

  test('what is kept stays within its bytes: the least recently asked walks go first', () => {
    const kept = new KeptWalks(64 * 1024);
    const inUnit = (unitId: number): Walk => ({ walk: 'matched', needle: tag, conditions: conditionsOf({ role_filter: 'all', include_inactive: false, unit_id: unitId }), upTo: 10 });
    asks(kept, [[inUnit(-1), false], [inUnit(-1), true]]);
    for (let unitId = 1; unitId <= 200; unitId++) kept.run(snapshot, inUnit(-1 - unitId));
    asks(kept, [
      [inUnit(-201), true],
      [inUnit(-1), false],
    ]);
  });
});

import { NewPlaces, UNDER_NEW, UNDER_UNKNOWN } from '../../src/modules/contacts/data/new-contacts';
import { loopTurnsDuring } from '../helpers/loop-turns';

/**
 * A batch's new contacts whose parents are other new contacts, named by service number (an
 * import's tree): `resolve` finds each parent once every contact is noted.
 */
describe('NewPlaces.resolve', () => {
  it('finds the parents of 200,000 new contacts in slices that let other requests run, and marks a parent no new contact holds', async () => {
    const count = 200_000;
    const places = new NewPlaces(count);
    // each contact under the one noted after it (so a parent is found only once all are noted), the last under a number nobody holds
    for (let k = 0; k < count; k++) {
      places.note({ ref: k + 2, contact: { service_no: `SN-${k}`, name: `Person ${k}` }, parent: { serviceNo: k === count - 1 ? 'SN-NONE' : `SN-${k + 1}` } });
    }
    const { turns } = await loopTurnsDuring(() => places.resolve());
    expect(places.kind[0]).toBe(UNDER_NEW);
    expect(places.parent[0]).toBe(1);
    expect(places.parent[count - 2]).toBe(count - 1);
    expect(places.kind[count - 1]).toBe(UNDER_UNKNOWN);
    expect(Array.from(places.kind).filter((kind) => kind === UNDER_NEW)).toHaveLength(count - 1);
    // 200,000 lookups take 60 ms or more: in one piece they held every other request
    expect(turns).toBeGreaterThan(2);
  });
});

import { TOP, UNDER_CONTACT, UNDER_NEW, UNDER_UNKNOWN, type NewPlaces } from '../data/new-contacts';
import type { PlannedChange } from './contact-change';

/**
 * A batch's changes of existing contacts as numbers by index: what the parents' rule
 * (parent-rules.ts) and the order of the writes need of each, without an object a change. An
 * import's 100,000 changes are made as objects a chunk at a time (contact-rules.ts) and noted
 * here as they pass, as the new contacts are in NewPlaces.
 */

/** A change that gives no parent (`ChangePlaces.kind`): the contact stays where it is. The others are NewPlaces' kinds. */
export const STAYS = 0;

export class ChangePlaces {
  readonly count: number;
  /** the caller's name of each (an import's row number) */
  readonly ref: Float64Array;
  /** the contact's id */
  readonly id: Float64Array;
  /** the unit the contact will be in, and its organization */
  readonly unit: Float64Array;
  readonly organization: Float64Array;
  readonly kind: Uint8Array;
  /** the parent: a contact's id (UNDER_CONTACT) or a new contact's index (UNDER_NEW) */
  readonly parent: Float64Array;
  private noted = 0;
  /** the indexes sorted by id, then index: made once every change is noted, by the first indexOf */
  private byId: Uint32Array | null = null;

  constructor(count: number) {
    this.count = count;
    this.ref = new Float64Array(count);
    this.id = new Float64Array(count);
    this.unit = new Float64Array(count);
    this.organization = new Float64Array(count);
    this.kind = new Uint8Array(count);
    this.parent = new Float64Array(count);
  }

  /** Notes the next change (they come in order, from index 0); `created`: the batch's new contacts, every one noted. */
  note(c: PlannedChange, created: NewPlaces): void {
    const k = this.noted++;
    this.ref[k] = c.ref;
    this.id[k] = c.current.id;
    this.unit[k] = c.changes.unit_id ?? c.current.unit_id;
    this.organization[k] = c.current.organization_id;
    const p = c.parent;
    if (p === undefined) this.kind[k] = STAYS;
    else if (p === null) this.kind[k] = TOP;
    else if ('id' in p) [this.kind[k], this.parent[k]] = [UNDER_CONTACT, p.id];
    else {
      const at = created.indexOf(p.serviceNo);
      if (at === undefined) this.kind[k] = UNDER_UNKNOWN;
      else [this.kind[k], this.parent[k]] = [UNDER_NEW, at];
    }
  }

  /** Whether change k gives its contact a parent (a contact, new or not): TOP needs no check. */
  movesUnder(k: number): boolean {
    const kind = this.kind[k];
    return kind === UNDER_CONTACT || kind === UNDER_NEW || kind === UNDER_UNKNOWN;
  }

  /** The index of the change of the contact `id` (the last, as a Map by id would keep it), or undefined. */
  indexOf(id: number): number | undefined {
    const byId = (this.byId ??= sortedBy(this.id, this.count));
    const at = lastAtMost(byId.length, (i) => this.id[byId[i]], id);
    return at >= 0 && this.id[byId[at]] === id ? byId[at] : undefined;
  }
}

/** The indexes 0 .. count - 1 sorted by their value, then by index. */
function sortedBy(values: Float64Array, count: number): Uint32Array {
  const order = new Uint32Array(count);
  for (let k = 0; k < count; k++) order[k] = k;
  return order.sort((a, b) => values[a] - values[b] || a - b);
}

/** Of n values sorted ascending (`valueAt`), the position of the last one at most `value`; -1 if none is. */
export function lastAtMost(n: number, valueAt: (i: number) => number, value: number): number {
  let [lo, hi] = [0, n - 1];
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    if (valueAt(mid) <= value) lo = mid + 1;
    else hi = mid - 1;
  }
  return hi;
}

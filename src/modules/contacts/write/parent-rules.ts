import type { Knex } from 'knex';
import { BadRequestError } from '../../../lib/errors';
import { TimeSlices } from '../../../lib/yield';
import { lineageWithPlaces, type PlacedAncestorRow } from '../data/tree/lineage';
import { TOP, UNDER_CONTACT, UNDER_NEW, type NewPlaces } from '../data/new-contacts';
import type { RuleCode, RuleFailure } from './contact-change';
import { lastAtMost, STAYS, type ChangePlaces } from './change-places';

/**
 * Each parent given is an active contact of the directory or a new contact of the batch, of
 * the contact's organization, in the unit the contact will be in, and following parents up
 * from it (the batch's new ones where it changes them, the directory's elsewhere) never comes
 * back to it. The new contacts and the changes come as numbers by index (`created`, `changed`:
 * an import's 100,000 are not an object each). A batch of 100,000 is checked in slices that let
 * other requests run. Failures come in the batch's order: the new contacts', then the changes'.
 */
export async function checkParents(trx: Knex.Transaction, created: NewPlaces, changed: ChangePlaces, failures: RuleFailure[]): Promise<void> {
  let moving = false;
  for (let c = 0; c < changed.count && !moving; c++) moving = changed.movesUnder(c);
  for (let k = 0; k < created.count && !moving; k++) moving = created.kind[k] !== TOP;
  if (!moving) return;
  const fail = (ref: number, code: RuleCode, message: string) => failures.push({ ref, code, error: BadRequestError.field('parent_id', message) });
  // the parents given, and the directory's parents of every contact above them, in one read
  const given = ParentRows.given(created, changed);
  const lineage = await lineageWithPlaces(trx, Array.from(given));
  const parents = ParentRows.of(given, lineage);

  // a node is a contact's id, or -(k + 1) for new contact k; null: above the top
  const up = (node: number): number | null => {
    if (node < 0) {
      const k = -node - 1;
      const kind = created.kind[k];
      return kind === UNDER_CONTACT ? created.parent[k] : kind === UNDER_NEW ? -(created.parent[k] + 1) : null;
    }
    const c = changed.indexOf(node);
    if (c !== undefined && changed.kind[c] !== STAYS) {
      const kind = changed.kind[c];
      return kind === UNDER_CONTACT ? changed.parent[c] : kind === UNDER_NEW ? -(changed.parent[c] + 1) : null;
    }
    return lineage.get(node)?.parent_id ?? null;
  };

  // a parent's place against the contact's: a failure, or null
  type Wrong = [RuleCode, string] | null;
  const missing: Wrong = ['parent_missing', 'Parent contact not found'];
  const samePlace = (unit: number | undefined, organization: number | undefined, unitId: number | undefined, organizationId: number | undefined): Wrong => {
    // the tree never crosses organizations, whoever the caller
    if (organization !== undefined && organizationId !== undefined && organization !== organizationId) return ['parent_organization', 'Parent must belong to the same organization'];
    if (unit !== undefined && unitId !== undefined && unit !== unitId) return ['parent_unit', 'Parent must belong to the same unit'];
    return null;
  };
  const underContact = (id: number, unitId: number | undefined, organizationId: number | undefined): Wrong => {
    const p = parents.indexOf(id);
    if (p === undefined || !parents.active[p]) return missing;
    const c = changed.indexOf(id);
    return samePlace(c !== undefined ? changed.unit[c] : parents.unit[p], parents.organization[p], unitId, organizationId);
  };
  const underNew = (k: number | undefined, unitId: number | undefined, organizationId: number | undefined): Wrong =>
    k === undefined ? missing : samePlace(created.unit[k] || undefined, created.organization[k] || undefined, unitId, organizationId);

  const slices = new TimeSlices();
  const placedNew = new Uint8Array(created.count);
  for (let k = 0; k < created.count; k++) {
    if (slices.due()) await slices.pause();
    const [kind, unitId, organizationId] = [created.kind[k], created.unit[k] || undefined, created.organization[k] || undefined];
    if (kind === TOP) continue;
    const wrong = kind === UNDER_CONTACT ? underContact(created.parent[k], unitId, organizationId)
      : kind === UNDER_NEW ? underNew(created.parent[k], unitId, organizationId)
      : missing;
    if (wrong) fail(created.ref[k], ...wrong);
    else placedNew[k] = 1;
  }
  const placed = new Uint8Array(changed.count);
  for (let c = 0; c < changed.count; c++) {
    if (slices.due()) await slices.pause();
    if (!changed.movesUnder(c)) continue;
    const [kind, unitId, organizationId] = [changed.kind[c], changed.unit[c], changed.organization[c]];
    const wrong = kind === UNDER_CONTACT ? underContact(changed.parent[c], unitId, organizationId)
      : underNew(kind === UNDER_NEW ? changed.parent[c] : undefined, unitId, organizationId);
    if (wrong) fail(changed.ref[c], ...wrong);
    else placed[c] = 1;
  }

  // cycles, each node walked once: 1 while on the walk being made, 2 once known to end at a
  // root or in a cycle already seen; a walk that meets its own nodes again closes a cycle.
  // New contacts' states are in one array (3: in a cycle), the directory's in a Map.
  const newState = new Uint8Array(created.count);
  const state = new Map<number, 1 | 2>();
  const inCycle = new Set<number>();
  const stateOf = (node: number) => (node < 0 ? newState[-node - 1] : state.get(node) ?? 0);
  const walk: number[] = [];
  const walkFrom = (start: number) => {
    walk.length = 0;
    let at: number | null = start;
    while (at !== null && stateOf(at) === 0) {
      if (at < 0) newState[-at - 1] = 1;
      else state.set(at, 1);
      walk.push(at);
      at = up(at);
    }
    if (at !== null && stateOf(at) === 1) {
      for (let i = walk.indexOf(at); i < walk.length; i++) {
        if (walk[i] < 0) newState[-walk[i] - 1] = 3;
        else inCycle.add(walk[i]);
      }
    }
    for (const node of walk) {
      if (node >= 0) state.set(node, 2);
      else if (newState[-node - 1] === 1) newState[-node - 1] = 2;
    }
  };
  for (let k = 0; k < created.count; k++) {
    if (slices.due()) await slices.pause();
    if (placedNew[k]) walkFrom(-(k + 1));
  }
  for (let c = 0; c < changed.count; c++) {
    if (slices.due()) await slices.pause();
    if (placed[c]) walkFrom(changed.id[c]);
  }
  const cycle = 'Cannot move a contact under itself or one of its descendants';
  for (let k = 0; k < created.count; k++) if (placedNew[k] && newState[k] === 3) fail(created.ref[k], 'parent_cycle', cycle);
  for (let c = 0; c < changed.count; c++) if (placed[c] && inCycle.has(changed.id[c])) fail(changed.ref[c], 'parent_cycle', cycle);
}

/** The contacts of the directory given as parents, as numbers: each once, by id. */
class ParentRows {
  private constructor(
    /** sorted ascending */
    readonly ids: Float64Array,
    readonly active = new Uint8Array(ids.length),
    readonly unit = new Float64Array(ids.length),
    readonly organization = new Float64Array(ids.length),
    /** 1 where the id names a row */
    private readonly found = new Uint8Array(ids.length),
  ) {}

  /** The ids of the parents that the new contacts and the changes give, each once, ascending. */
  static given(created: NewPlaces, changed: ChangePlaces): Float64Array {
    const given: number[] = [];
    for (let k = 0; k < created.count; k++) if (created.kind[k] === UNDER_CONTACT) given.push(created.parent[k]);
    for (let c = 0; c < changed.count; c++) if (changed.kind[c] === UNDER_CONTACT) given.push(changed.parent[c]);
    const sorted = Float64Array.from(given).sort();
    given.length = 0;
    let n = 0;
    for (let i = 0; i < sorted.length; i++) if (i === 0 || sorted[i] !== sorted[i - 1]) sorted[n++] = sorted[i];
    return sorted.slice(0, n);
  }

  /** The given parents' rows, from their lineage (which starts with them). */
  static of(ids: Float64Array, lineage: ReadonlyMap<number, PlacedAncestorRow>): ParentRows {
    const parents = new ParentRows(ids);
    for (let p = 0; p < ids.length; p++) {
      const u = lineage.get(ids[p]);
      if (u) [parents.found[p], parents.active[p], parents.unit[p], parents.organization[p]] = [1, u.is_active ? 1 : 0, u.unit_id, u.organization_id];
    }
    return parents;
  }

  /** The place of the contact `id` among the parents, if it is one that names a row. */
  indexOf(id: number): number | undefined {
    const at = this.placeOf(id);
    return at >= 0 && this.ids[at] === id && this.found[at] ? at : undefined;
  }

  /** The place of the last id at most `id`. */
  private placeOf(id: number): number {
    return lastAtMost(this.ids.length, (i) => this.ids[i], id);
  }
}

/**
 * The order to write a batch's changes in, as their indexes: a change whose new parent is
 * changed in the same batch after that parent's, the others in the batch's order.
 */
export function parentsFirst(changed: ChangePlaces): Uint32Array {
  const level = new Int32Array(changed.count).fill(-1);
  // the walk each change was last seen on, + 1
  const seenOn = new Int32Array(changed.count);
  const chain: number[] = [];
  for (let c = 0; c < changed.count; c++) {
    // up the batch's own parents to one whose level is known (or none), then down again; the
    // batch has no cycle here (checkContacts refused it), and `seenOn` keeps a bad caller finite
    chain.length = 0;
    let at: number | undefined = c;
    while (at !== undefined && level[at] < 0 && seenOn[at] !== c + 1) {
      seenOn[at] = c + 1;
      chain.push(at);
      at = changed.kind[at] === UNDER_CONTACT ? changed.indexOf(changed.parent[at]) : undefined;
    }
    let l = at !== undefined && level[at] >= 0 ? level[at] : -1;
    for (let i = chain.length - 1; i >= 0; i--) level[chain[i]] = ++l;
  }
  const order = new Uint32Array(changed.count);
  for (let c = 0; c < changed.count; c++) order[c] = c;
  return order.sort((a, b) => level[a] - level[b] || a - b);
}

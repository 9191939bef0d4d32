import type { Knex } from 'knex';
import { BadRequestError } from '../../../lib/errors';
import { TimeSlices } from '../../../lib/yield';
import { findUserRows } from '../data/users.queries';
import { lineageOf } from '../data/tree/lineage';
import { TOP, UNDER_CONTACT, UNDER_NEW, type NewPlaces } from '../data/new-contacts';
import type { PlannedChange, RuleCode, RuleFailure, Subject } from './contact-change';

/**
 * Each parent given is an active contact of the directory or a new contact of the batch, of
 * the contact's organization, in the unit the contact will be in, and following parents up
 * from it (the batch's new ones where it changes them, the directory's elsewhere) never comes
 * back to it. The new contacts come as numbers by index (`created`: an import's 100,000 are not
 * an object each), the changes as subjects. A batch of 100,000 is checked in slices that let
 * other requests run. Failures come in the batch's order: the new contacts', then the changes'.
 */
export async function checkParents(trx: Knex.Transaction, created: NewPlaces, changed: Subject[], failures: RuleFailure[]): Promise<void> {
  const moving = changed.filter((s) => s.parent);
  let newMoving = false;
  for (let k = 0; k < created.count && !newMoving; k++) newMoving = created.kind[k] !== TOP;
  if (moving.length === 0 && !newMoving) return;
  const fail = (ref: number, code: RuleCode, message: string) => failures.push({ ref, code, error: BadRequestError.field('parent_id', message) });
  const changedById = new Map(changed.map((s) => [s.id!, s]));
  const parentIdSet = new Set<number>();
  for (let k = 0; k < created.count; k++) if (created.kind[k] === UNDER_CONTACT) parentIdSet.add(created.parent[k]);
  for (const s of moving) if (s.parent && 'id' in s.parent) parentIdSet.add(s.parent.id);
  const parentIds = [...parentIdSet];
  const parents = new Map((await findUserRows(trx, parentIds)).map((u) => [u.id, u]));
  // the directory's parents of every contact above the new parents
  const lineage = await lineageOf(trx, parentIds);

  // a node is a contact's id, or -(k + 1) for new contact k; null: above the top
  const newNode = (k: number | undefined) => (k === undefined ? null : -(k + 1));
  const up = (node: number): number | null => {
    if (node < 0) {
      const k = -node - 1;
      const kind = created.kind[k];
      return kind === UNDER_CONTACT ? created.parent[k] : kind === UNDER_NEW ? -(created.parent[k] + 1) : null;
    }
    const s = changedById.get(node);
    if (s && s.parent !== undefined) return s.parent === null ? null : 'id' in s.parent ? s.parent.id : newNode(created.indexOf(s.parent.serviceNo));
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
    const row = parents.get(id);
    if (!row || !row.is_active) return missing;
    return samePlace(changedById.get(id)?.unitId ?? row.unit_id, row.organization_id, unitId, organizationId);
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
  const placed: Subject[] = [];
  for (const s of moving) {
    if (slices.due()) await slices.pause();
    const parent = s.parent!;
    const wrong = 'id' in parent ? underContact(parent.id, s.unitId, s.organizationId) : underNew(created.indexOf(parent.serviceNo), s.unitId, s.organizationId);
    if (wrong) fail(s.ref, ...wrong);
    else placed.push(s);
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
  for (const s of placed) {
    if (slices.due()) await slices.pause();
    walkFrom(s.id!);
  }
  const cycle = 'Cannot move a contact under itself or one of its descendants';
  for (let k = 0; k < created.count; k++) if (placedNew[k] && newState[k] === 3) fail(created.ref[k], 'parent_cycle', cycle);
  for (const s of placed) if (inCycle.has(s.id!)) fail(s.ref, 'parent_cycle', cycle);
}

/** The order to write a batch's changes in: a change whose new parent is changed in the same batch after that parent's. */
export function parentsFirst(changes: readonly PlannedChange[]): PlannedChange[] {
  const byId = new Map(changes.map((c) => [c.current.id, c]));
  const level = new Map<PlannedChange, number>();
  for (const c of changes) {
    // up the batch's own parents to one whose level is known (or none), then down again; the
    // batch has no cycle here (checkContacts refused it), and `seen` keeps a bad caller finite
    const chain: PlannedChange[] = [];
    const seen = new Set<PlannedChange>();
    let at: PlannedChange | undefined = c;
    while (at && !level.has(at) && !seen.has(at)) {
      seen.add(at);
      chain.push(at);
      at = at.parent && 'id' in at.parent ? byId.get(at.parent.id) : undefined;
    }
    let l = at && level.has(at) ? level.get(at)! : -1;
    for (let i = chain.length - 1; i >= 0; i--) level.set(chain[i], ++l);
  }
  return [...changes].sort((a, b) => level.get(a)! - level.get(b)!);
}

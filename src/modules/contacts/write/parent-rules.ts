import type { Knex } from 'knex';
import { BadRequestError } from '../../../lib/errors';
import { TimeSlices } from '../../../lib/yield';
import { findUserRows } from '../data/users.queries';
import { lineageOf } from '../data/tree/lineage';
import type { PlannedChange, RuleCode, RuleFailure, Subject } from './contact-change';

/**
 * Each parent given is an active contact of the directory or a new contact of the batch, of
 * the contact's organization, in the unit the contact will be in, and following parents up
 * from it (the batch's new ones where it changes them, the directory's elsewhere) never comes
 * back to it. A batch of 100,000 is checked in slices that let other requests run.
 */
export async function checkParents(trx: Knex.Transaction, subjects: Subject[], failures: RuleFailure[]): Promise<void> {
  const moving = subjects.filter((s) => s.parent);
  if (moving.length === 0) return;
  const fail = (s: Subject, code: RuleCode, message: string) => failures.push({ ref: s.ref, code, error: BadRequestError.field('parent_id', message) });
  const newBySn = new Map(subjects.filter((s) => s.id === null).map((s) => [s.serviceNo, s]));
  const changedById = new Map(subjects.filter((s) => s.id !== null).map((s) => [s.id!, s]));
  const parentIds = [...new Set(moving.flatMap((s) => (s.parent && 'id' in s.parent ? [s.parent.id] : [])))];
  const parents = new Map((await findUserRows(trx, parentIds)).map((u) => [u.id, u]));
  // the directory's parents of every contact above the new parents
  const lineage = await lineageOf(trx, parentIds);

  // a node is a contact's id, or "n:" and a new contact's service number
  const nodeOf = (s: Subject) => (s.id === null ? `n:${s.serviceNo}` : s.id);
  const up = (node: number | string): number | string | null => {
    const s = typeof node === 'number' ? changedById.get(node) : newBySn.get(node.slice(2));
    if (s && s.parent !== undefined) return s.parent === null ? null : 'id' in s.parent ? s.parent.id : `n:${s.parent.serviceNo}`;
    if (typeof node === 'string') return null;
    return lineage.get(node)?.parent_id ?? null;
  };

  const slices = new TimeSlices();
  const placed: Subject[] = [];
  for (const s of moving) {
    if (slices.due()) await slices.pause();
    const ref = s.parent!;
    let unit: number | undefined;
    let organization: number | undefined;
    if ('id' in ref) {
      const parent = parents.get(ref.id);
      if (!parent || !parent.is_active) {
        fail(s, 'parent_missing', 'Parent contact not found');
        continue;
      }
      unit = changedById.get(ref.id)?.unitId ?? parent.unit_id;
      organization = parent.organization_id;
    } else {
      const parent = newBySn.get(ref.serviceNo);
      if (!parent) {
        fail(s, 'parent_missing', 'Parent contact not found');
        continue;
      }
      unit = parent.unitId;
      organization = parent.organizationId;
    }
    // the tree never crosses organizations, whoever the caller
    if (organization !== undefined && s.organizationId !== undefined && organization !== s.organizationId) {
      fail(s, 'parent_organization', 'Parent must belong to the same organization');
      continue;
    }
    if (unit !== undefined && s.unitId !== undefined && unit !== s.unitId) {
      fail(s, 'parent_unit', 'Parent must belong to the same unit');
      continue;
    }
    placed.push(s);
  }

  // cycles, each node walked once: 1 while on the walk being made, 2 once known to end at a
  // root or in a cycle already seen; a walk that meets its own nodes again closes a cycle
  const state = new Map<number | string, 1 | 2>();
  const inCycle = new Set<number | string>();
  for (const s of placed) {
    if (slices.due()) await slices.pause();
    const walk: Array<number | string> = [];
    let at: number | string | null = nodeOf(s);
    while (at !== null && !state.has(at)) {
      state.set(at, 1);
      walk.push(at);
      at = up(at);
    }
    if (at !== null && state.get(at) === 1) for (let i = walk.indexOf(at); i < walk.length; i++) inCycle.add(walk[i]);
    for (const node of walk) state.set(node, 2);
  }
  for (const s of placed) {
    if (inCycle.has(nodeOf(s))) fail(s, 'parent_cycle', 'Cannot move a contact under itself or one of its descendants');
  }
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

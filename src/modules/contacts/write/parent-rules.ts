import type { Knex } from 'knex';
import { BadRequestError } from '../../../lib/errors';
import { findUserRows } from '../read/users.queries';
import { lineageOf } from '../tree/lineage';
import type { PlannedChange, RuleCode, RuleFailure, Subject } from './contact-change';

/**
 * Each parent given is an active contact of the directory or a new contact of the batch, of
 * the contact's organization, in the unit the contact will be in, and following parents up from it (the batch's new ones
 * where it changes them, the directory's elsewhere) never comes back to it.
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

  for (const s of moving) {
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
    // walk up from the contact; a walk that meets the contact again is a cycle through it
    const start = nodeOf(s);
    const seen = new Set<number | string>([start]);
    for (let at = up(start); at !== null; at = up(at)) {
      if (at === start) {
        fail(s, 'parent_cycle', 'Cannot move a contact under itself or one of its descendants');
        break;
      }
      if (seen.has(at)) break; // a cycle above it, reported on its own members
      seen.add(at);
    }
  }
}

/** The order to write a batch's changes in: a change whose new parent is changed in the same batch after that parent's. */
export function parentsFirst(changes: readonly PlannedChange[]): PlannedChange[] {
  const byId = new Map(changes.map((c) => [c.current.id, c]));
  const level = new Map<PlannedChange, number>();
  const levelOf = (c: PlannedChange, depth = 0): number => {
    if (level.has(c)) return level.get(c)!;
    const parent = c.parent && 'id' in c.parent ? byId.get(c.parent.id) : undefined;
    // the batch has no cycle here (checkContacts refused it); the depth bound keeps a bad caller finite
    const l = parent && depth < changes.length ? levelOf(parent, depth + 1) + 1 : 0;
    level.set(c, l);
    return l;
  };
  return [...changes].sort((a, b) => levelOf(a) - levelOf(b));
}

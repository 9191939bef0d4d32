import type { Knex } from 'knex';
import { chunks } from '../../../lib/chunks';
import { BadRequestError } from '../../../lib/errors';
import type { UserRow } from './users.queries';
import { SEARCH_FIELDS, type SearchableFields } from '../domain/grams';
import { writeContactGrams } from './gram-changes';
import { noteChanges } from './changes.writer';
import { lineageWithPlaces } from './tree/lineage';
import { changeStamp, markSearchChanged } from './tree/lock';
import { sortNameOf } from './tree/keys';
import { TreeOrder } from './tree/order';

/**
 * Every write to a contact row that can touch the tree goes through here, inside a
 * transaction that holds the directory lock (changeDirectory): the checks below read a tree that
 * nobody else is changing, so what they allow stays true until the commit. Each notes what it
 * changed for the change feed (changes.writer.ts), written with the change.
 */

export interface ContactInsert {
  name: string;
  email: string;
  service_no: string;
  password_hash?: string | null;
  phone?: string | null;
  mobile?: string | null;
  alternative_mobile?: string | null;
  rank_id?: number | null;
  unit_id: number;
  department_id?: number | null;
  designation_id: number;
  parent_id?: number | null;
  role_id?: number;
  organization_id?: number;
  branch?: string | null;
  sub_branch?: string | null;
  avatar?: string | null;
  status?: string;
  /** what an identity provider knows the contact by (SCIM externalId), unique within the organization */
  external_id?: string | null;
}

export type ContactChanges = Partial<Omit<ContactInsert, 'password_hash'>>;

/**
 * The parent rules for contacts about to be placed under `parentId` (an id of null: a contact
 * not yet inserted): the parent exists, is active, is in each one's unit, and is none of them
 * nor one of their descendants.
 */
export async function assertParentAllowed(
  trx: Knex.Transaction,
  contacts: ReadonlyArray<{ id: number | null; unit_id: number }>,
  parentId: number,
): Promise<void> {
  // a contact may not go under itself or its own subtree: the parent's lineage (the parent and
  // every contact above it, one query whatever the number of contacts) holds none of them
  const lineage = await lineageWithPlaces(trx, [parentId]);
  const parent = lineage.get(parentId);
  if (!parent?.is_active) throw BadRequestError.field('parent_id', 'Parent contact not found');
  if (contacts.some((c) => c.unit_id !== parent.unit_id)) throw BadRequestError.field('parent_id', 'Parent must belong to the same unit');
  if (contacts.some((c) => c.id !== null && lineage.has(c.id))) {
    throw BadRequestError.field('parent_id', 'Cannot move a contact under itself or one of its descendants');
  }
}

/**
 * How a writer was checked: `checked` when the rules (contact-rules.ts) passed for this very
 * change in this transaction, so the parent needs no second look.
 */
export interface WriteChecks {
  checked?: boolean;
}

/** Inserts a contact in its place in the tree, found first so that the row goes in with its label (a new id sorts after its namesakes). Returns the new id. */
export async function insertContact(trx: Knex.Transaction, fields: ContactInsert, checks: WriteChecks = {}): Promise<number> {
  const parentId = fields.parent_id ?? null;
  if (parentId !== null && !checks.checked) await assertParentAllowed(trx, [{ id: null, unit_id: fields.unit_id }], parentId);
  const now = new Date();
  const { tree_ord, depth } = await new TreeOrder(trx).labelsForNew(parentId, { length: 1, sortName: () => sortNameOf(fields.name), rows: () => 1 });
  const [id] = await trx('users').insert({
    ...fields,
    parent_id: parentId,
    sort_name: sortNameOf(fields.name),
    tree_ord: tree_ord[0],
    depth,
    change_version: changeStamp(trx),
    is_active: true,
    created_at: now,
    updated_at: now,
  });
  writeContactGrams(trx, Number(id), {}, fields);
  markSearchChanged(trx);
  noteChanges(trx, 'created', [{ id: Number(id), organization_id: fields.organization_id ?? DEFAULT_ORGANIZATION_ID }]);
  return Number(id);
}

/** users.organization_id's default (the migration's): a contact inserted without one is of it. */
const DEFAULT_ORGANIZATION_ID = 1;

/**
 * The fields of a contact that a listing shows and a change names (ContactChanges): a change of
 * one of them is a change of the contact for the feed. Not among them: what a change sets on
 * its own (updated_at), the names a contact shows of other records (a unit's, a parent's: their
 * own changes), and the fields no listing shows (branch, sub_branch).
 */
const LISTED_FIELDS = [
  'name', 'rank_id', 'service_no', 'unit_id', 'department_id', 'designation_id', 'phone', 'mobile', 'alternative_mobile',
  'email', 'role_id', 'avatar', 'status',
] as const satisfies ReadonlyArray<keyof ContactChanges & keyof UserRow>;

/**
 * Applies `changes` to the contact `current`, keeping the tree's rules: a unit change is refused
 * while the contact has active children or would stay under a parent in the old unit; a new
 * parent is checked (unless the rules have); a new parent or name moves its subtree in the order.
 */
export async function updateContact(trx: Knex.Transaction, current: UserRow, changes: ContactChanges, checks: WriteChecks = {}): Promise<void> {
  const unitId = changes.unit_id ?? current.unit_id;
  const unitChanged = unitId !== current.unit_id;
  const parentGiven = changes.parent_id !== undefined;
  const parentId = parentGiven ? (changes.parent_id ?? null) : current.parent_id;

  if (unitChanged) {
    const activeChild = await trx('users').where({ parent_id: current.id, is_active: true }).first('id');
    if (activeChild) throw BadRequestError.field('unit_id', 'Cannot change the unit of a contact that has active children');
    if (parentId !== null && !parentGiven) {
      throw BadRequestError.field('unit_id', 'Cannot change the unit of a contact whose parent is in the old unit; give a parent_id in the new unit, or null');
    }
  }
  if (!checks.checked && parentId !== null && (parentId !== current.parent_id || unitChanged)) {
    await assertParentAllowed(trx, [{ id: current.id, unit_id: unitId }], parentId);
  }

  const searchable = SEARCH_FIELDS.some((f) => changes[f] !== undefined);
  const before: SearchableFields = { name: current.name, email: current.email, service_no: current.service_no, phone: current.phone, mobile: current.mobile };
  // strictly later than the row's last change, even within one millisecond or on a server
  // whose clock lags another's: updated_at is the row's version for If-Match (contactRowTag)
  const updatedAt = new Date(Math.max(Date.now(), Date.parse(current.updated_at) + 1));
  const row: Record<string, unknown> = { ...changes, updated_at: updatedAt };
  // an update that changes nothing leaves the search index nothing to read again
  if (Object.values(changes).some((value) => value !== undefined)) row.change_version = changeStamp(trx);
  // no token outlives the rights it was issued for
  if (changes.role_id !== undefined && changes.role_id !== current.role_id) row.token_version = trx.raw('token_version + 1');
  const renamed = changes.name !== undefined && sortNameOf(changes.name) !== sortNameOf(current.name);
  if (changes.name !== undefined) row.sort_name = sortNameOf(changes.name);
  if (parentGiven) row.parent_id = parentId;
  // placed before its row is written: moved alone (no row below it), its label goes into that
  // write (TreeOrder KnownRoots); with a new unit it moves after its children, below
  const known = { sortNames: new Map([[current.id, sortNameOf(changes.name ?? current.name)]]) } as const;
  const placed = renamed || parentId !== current.parent_id;
  if (placed && !unitChanged) Object.assign(row, await new TreeOrder(trx).moveSubtrees([current.id], parentId, { ...known, writesAloneLabel: true }));
  await trx('users').where({ id: current.id }).update(row);

  if (searchable) writeContactGrams(trx, current.id, before, { ...before, ...changes });
  const self = [{ id: current.id, organization_id: changes.organization_id ?? current.organization_id }];
  if (parentId !== current.parent_id) noteChanges(trx, 'moved', self);
  else if (LISTED_FIELDS.some((f) => changes[f] !== undefined && changes[f] !== current[f])) noteChanges(trx, 'updated', self);
  // what a search shows of a contact is all but its place in the tree
  if (Object.entries(changes).some(([key, value]) => key !== 'parent_id' && value !== undefined)) markSearchChanged(trx);

  if (unitChanged) {
    // inactive children stay in the old unit: they become roots there
    const left = (await trx('users').where({ parent_id: current.id }).select('id', 'organization_id')).map((r) => ({ id: Number(r.id), organization_id: Number(r.organization_id) }));
    noteChanges(trx, 'moved', left);
    const tree = new TreeOrder(trx);
    await tree.moveSubtrees(left.map((r) => r.id), null);
    if (placed) await tree.moveSubtrees([current.id], parentId, known);
  }
}

/** A contact that a delete left without its parent: it became a root (contact-writes.service.ts records it). */
export interface Orphan {
  id: number;
  parent_id: number;
  organization_id: number;
}

/**
 * Soft-deletes contacts: inactive, offline, their tokens revoked; their children that are not
 * deleted in the same call become roots. Returns the ids it changed (active ones only) and the
 * children it made roots.
 */
export async function deactivateContacts(trx: Knex.Transaction, ids: number[]): Promise<{ removed: number[]; orphans: Orphan[] }> {
  const active: number[] = [];
  const deleted: Array<{ id: number; organization_id: number }> = [];
  for (const chunk of chunks(ids)) {
    for (const row of await trx('users').whereIn('id', chunk).where({ is_active: true }).select('id', 'organization_id')) {
      active.push(Number(row.id));
      deleted.push({ id: Number(row.id), organization_id: Number(row.organization_id) });
    }
  }
  if (active.length === 0) return { removed: [], orphans: [] };
  noteChanges(trx, 'deleted', deleted);
  markSearchChanged(trx);
  const removed = new Set(active);
  const orphans: Orphan[] = [];
  for (const chunk of chunks(active)) {
    await trx('users').whereIn('id', chunk).update({
      is_active: false,
      status: 'offline',
      token_version: trx.raw('token_version + 1'),
      updated_at: new Date(),
      change_version: changeStamp(trx),
    });
    const children = await trx('users').whereIn('parent_id', chunk).select('id', 'parent_id', 'organization_id');
    for (const c of children) {
      if (!removed.has(Number(c.id))) orphans.push({ id: Number(c.id), parent_id: Number(c.parent_id), organization_id: Number(c.organization_id) });
    }
  }
  noteChanges(trx, 'moved', orphans);
  await new TreeOrder(trx).moveSubtrees(orphans.map((o) => o.id), null);
  return { removed: ids.filter((id) => removed.has(id)), orphans };
}

/**
 * Moves contacts, each with its subtree, under `parentId` (null: to the top level): the bulk
 * move. The caller has checked the rules; a contact already under `parentId` keeps its place in
 * the feed (only its order key may change).
 */
export async function moveContacts(
  trx: Knex.Transaction,
  contacts: ReadonlyArray<Pick<UserRow, 'id' | 'parent_id' | 'organization_id'>>,
  parentId: number | null,
): Promise<void> {
  noteChanges(trx, 'moved', contacts.filter((c) => c.parent_id !== parentId));
  await new TreeOrder(trx).moveSubtrees(contacts.map((c) => c.id), parentId);
}

/**
 * Makes a deactivated contact active again (SCIM's `active: true`), where it was in the tree
 * when its parent is still an active contact of its unit, else at the top: a contact that a
 * delete left without its parent is not put back under it. The caller then checks and applies
 * the change that came with it.
 */
export async function reactivateContact(trx: Knex.Transaction, current: UserRow): Promise<UserRow> {
  const parent = current.parent_id === null ? null : await trx('users').where({ id: current.parent_id }).first('is_active', 'unit_id', 'organization_id');
  const keepsParent = parent && Number(parent.is_active) && Number(parent.unit_id) === current.unit_id && Number(parent.organization_id) === current.organization_id;
  const updatedAt = new Date(Math.max(Date.now(), Date.parse(current.updated_at) + 1));
  await trx('users').where({ id: current.id }).update({ is_active: true, deprovisioned_at: null, updated_at: updatedAt, change_version: changeStamp(trx) });
  // the feed's type for a contact brought back (docs/changes.md): a client shows it again
  noteChanges(trx, 'restored', [{ id: current.id, organization_id: current.organization_id }]);
  markSearchChanged(trx);
  if (!keepsParent && current.parent_id !== null) await new TreeOrder(trx).moveSubtrees([current.id], null);
  return { ...current, is_active: true, parent_id: keepsParent ? current.parent_id : null, updated_at: updatedAt.toISOString() };
}

/** Marks contacts as deleted by their identity provider (SCIM DELETE): no longer SCIM resources. */
export async function markDeprovisioned(trx: Knex.Transaction, id: number): Promise<void> {
  await trx('users').where({ id }).update({ deprovisioned_at: new Date() });
}

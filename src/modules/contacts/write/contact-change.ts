import type { AppError } from '../../../lib/errors';
import type { UserRow } from '../data/users.queries';
import type { ContactChanges, ContactInsert } from '../data/contact.writer';

/**
 * A change of the directory as every writer of contacts describes it: new contacts and
 * changes of existing ones, each with the caller's name for it (`ref`), and what the rules
 * (contact-rules.ts) find wrong with it.
 */

/** Where a contact goes: under a contact of the directory, under a new contact of the same batch (by its service number), at the top. */
export type ParentRef = { id: number } | { serviceNo: string } | null;

/** A contact to create; `ref` is the caller's name for it (an import's row number). */
export interface PlannedCreate {
  ref: number;
  contact: Partial<Omit<ContactInsert, 'parent_id' | 'service_no'>> & { service_no: string };
  parent: ParentRef;
}

/** A change of the active contact `current`; `parent` undefined: it stays where it is. */
export interface PlannedChange {
  ref: number;
  current: UserRow;
  changes: Omit<ContactChanges, 'parent_id'>;
  parent?: ParentRef;
}

export interface ContactBatch {
  creates: NewContacts;
  changes: BatchChanges;
}

/**
 * A batch's new contacts by index: an array, or a source that makes each when the rules and
 * the writer reach it (an import makes them from its file's rows, so that 100,000 are never
 * objects at once). `at(k)` of a k below `length` is the k-th.
 */
export interface NewContacts<T extends PlannedCreate = PlannedCreate> {
  readonly length: number;
  at(k: number): T | undefined;
}

/**
 * A batch's changes of existing contacts: an array, or a source that makes the changes asked
 * for, by index, each time it is asked. An import's 100,000 changes held at once would each
 * keep its contact's current row (some 670 bytes), so the rules and the writer ask for a
 * chunk at a time and let go of it. A source reads the chunk's current rows again in the
 * caller's transaction, which holds the directory lock: they are the rows its plan saw.
 */
export interface ChangeSource {
  readonly length: number;
  /** The changes of the indexes `ks` (each below `length`), in that order. */
  make(ks: ArrayLike<number>): Promise<PlannedChange[]>;
}

export type BatchChanges = readonly PlannedChange[] | ChangeSource;

/** The changes of the indexes `ks` of a batch's changes, made now where they come from a source. */
export async function changesAt(changes: BatchChanges, ks: ArrayLike<number>): Promise<readonly PlannedChange[]> {
  if ('make' in changes) return changes.make(ks);
  return Array.from(ks, (k) => changes[k]);
}

/**
 * What a failure is about, for a caller that words it its own way (an import names the file's
 * columns): the contact's organization, the contact's role, a role given, an id that refers to nothing, a taken e-mail or
 * service number, the parent, or a rule that only the write itself meets. `error` is the
 * answer of a single request.
 */
export type RuleCode =
  | 'organization' | 'reach' | 'role_reach' | 'reference' | 'taken'
  | 'parent_missing' | 'parent_unit' | 'parent_organization' | 'parent_cycle' | 'write';

export interface RuleFailure {
  ref: number;
  code: RuleCode;
  error: AppError;
}

/** One item of a batch, as the rules see it: what it will be after the write. */
export interface Subject {
  ref: number;
  /** the contact's id; null for a new one */
  id: number | null;
  serviceNo: string;
  current: UserRow | null;
  given: Partial<ContactInsert>;
  unitId: number | undefined;
  organizationId: number | undefined;
  departmentId: number | null | undefined;
  parent: ParentRef | undefined;
}

export function subjectsOf(batch: { creates: readonly PlannedCreate[]; changes: readonly PlannedChange[] }): Subject[] {
  const created: Subject[] = batch.creates.map((c) => ({
    ref: c.ref, id: null, serviceNo: c.contact.service_no, current: null, given: c.contact,
    unitId: c.contact.unit_id, organizationId: c.contact.organization_id, departmentId: c.contact.department_id ?? null, parent: c.parent,
  }));
  const changed: Subject[] = batch.changes.map((c) => ({
    ref: c.ref, id: c.current.id, serviceNo: c.changes.service_no ?? c.current.service_no, current: c.current, given: c.changes,
    unitId: c.changes.unit_id ?? c.current.unit_id,
    organizationId: c.current.organization_id,
    // the department kept is checked against a new unit only: against the same unit it holds
    departmentId: c.changes.department_id !== undefined ? c.changes.department_id : c.changes.unit_id !== undefined && c.changes.unit_id !== c.current.unit_id ? c.current.department_id : undefined,
    parent: c.parent,
  }));
  return [...created, ...changed];
}


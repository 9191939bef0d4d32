import type { Knex } from 'knex';
import { BadRequestError, ForbiddenError, NotFoundError, ValidationError, type AppError, type FieldError } from '../../../lib/errors';
import { assertRoleWithinReach, reachesEveryOrganization, type AuthContext } from '../../access';
import { findUserRows } from '../data/users.queries';
import { externalIdHolders, referencedRows } from '../data/references.queries';
import { TimeSlices } from '../../../lib/yield';
import { NewPlaces } from '../data/new-contacts';
import { changesAt, subjectsOf, type ContactBatch, type PlannedCreate, type RuleFailure, type Subject } from './contact-change';
import type { ContactChanges } from '../data/contact.writer';
import { checkParents } from './parent-rules';
import { ChangePlaces } from './change-places';
import type { UniqueField } from '../data/uniqueness';

/**
 * The rules of a contact, checked once for every writer: a single create or change, a bulk
 * move, a registration and an import all describe what they want as a batch and ask
 * checkContacts what is wrong with it, inside the transaction that holds the directory lock.
 */

/** The messages a caller gives a taken e-mail or service number; the contacts' own by default. */
export type TakenWords = (field: UniqueField) => AppError;

export const CONTACT_TAKEN: TakenWords = (field) => BadRequestError.field(field, 'Service number or email already exists');

const REFERENCE_TABLES: ReadonlyArray<[keyof ContactChanges & `${string}_id`, string, string]> = [
  ['unit_id', 'units', 'Unknown unit'],
  ['department_id', 'departments', 'Unknown department'],
  ['designation_id', 'designations', 'Unknown designation'],
  ['rank_id', 'ranks', 'Unknown rank'],
  ['role_id', 'roles', 'Unknown role'],
];

/** New contacts or changes checked at once (made as objects, checked, let go of): an import's 100,000 in slices. */
const RULES_AT_ONCE = 2000;

/**
 * Every rule a batch breaks, in the order a single request meets them: the caller's reach
 * (the contact's organization and role, any role given), references, uniqueness, then the
 * parents (an active contact of the same unit and organization, no cycle). Nothing is written.
 */
export async function checkContacts(trx: Knex.Transaction, actor: AuthContext, batch: ContactBatch, taken: TakenWords = CONTACT_TAKEN): Promise<RuleFailure[]> {
  return (await checkBatch(trx, actor, batch, taken)).failures;
}

/**
 * checkContacts, and the batch's places as numbers: the new contacts' for the forest writer,
 * the changes' for the order of the writes. The new contacts, then the changes, are made and
 * checked RULES_AT_ONCE at a time, each rule of one contact alone (reach, references,
 * uniqueness against the directory), and noted in `places` and `changed`; the parents are
 * checked last, over the whole batch, as numbers. A contact's failures come in the order a
 * single request meets them; the new contacts' come before the changes', each chunk's rule by
 * rule (an import sorts them by row).
 */
export async function checkBatch(
  trx: Knex.Transaction,
  actor: AuthContext,
  batch: ContactBatch,
  taken: TakenWords = CONTACT_TAKEN,
): Promise<{ failures: RuleFailure[]; places: NewPlaces; changed: ChangePlaces }> {
  const failures: RuleFailure[] = [];
  const within = roleReach(trx, actor);
  const places = new NewPlaces(batch.creates.length);
  const slices = new TimeSlices();
  for (let at = 0; at < batch.creates.length; at += RULES_AT_ONCE) {
    const creates: PlannedCreate[] = [];
    for (let k = at; k < Math.min(at + RULES_AT_ONCE, batch.creates.length); k++) {
      const c = batch.creates.at(k)!;
      places.note(c);
      creates.push(c);
      if (slices.due()) await slices.pause();
    }
    await checkEach(trx, actor, subjectsOf({ creates, changes: [] }), taken, within, failures);
  }
  await places.resolve();
  const changed = new ChangePlaces(batch.changes.length);
  for (let at = 0; at < batch.changes.length; at += RULES_AT_ONCE) {
    const ks = Array.from({ length: Math.min(RULES_AT_ONCE, batch.changes.length - at) }, (_, i) => at + i);
    const changes = await changesAt(batch.changes, ks);
    for (const c of changes) changed.note(c, places);
    await checkEach(trx, actor, subjectsOf({ creates: [], changes }), taken, within, failures);
  }
  await checkParents(trx, places, changed, failures);
  return { failures, places, changed };
}

/** The rules of one contact alone, for each of `subjects`. */
async function checkEach(trx: Knex.Transaction, actor: AuthContext, subjects: Subject[], taken: TakenWords, within: RoleReach, failures: RuleFailure[]): Promise<void> {
  if (subjects.length === 0) return;
  await checkReach(actor, subjects, within, failures);
  await checkReferences(trx, subjects, failures);
  await checkTaken(trx, subjects, taken, failures);
}

/**
 * For a request about one contact: its first failure as the answer (the references' failures
 * together, as one validation error), or nothing.
 */
export function throwFirst(failures: readonly RuleFailure[]): void {
  if (failures.length === 0) return;
  const first = failures[0];
  if (first.code !== 'reference') throw first.error;
  const unknown = failures.filter((f) => f.code === 'reference' && f.error instanceof ValidationError);
  if (unknown.length === 0) throw first.error;
  throw new ValidationError(unknown.flatMap((f) => f.error.errors ?? []));
}

/** Of the given contacts, those outside the caller's reach by organization. */
export function outsideOrganization<T extends { organization_id: number }>(actor: AuthContext, contacts: readonly T[]): T[] {
  return reachesEveryOrganization(actor) ? [] : contacts.filter((c) => c.organization_id !== actor.organizationId);
}

/**
 * The caller's reach: a contact of another organization is not there for a bounded caller (404,
 * as if it did not exist: reads are open, but a write does not confirm what it cannot touch); a
 * new contact goes into the own organization; the contact's role and any role given are within
 * the caller's privileges.
 */
async function checkReach(actor: AuthContext, subjects: Subject[], within: RoleReach, failures: RuleFailure[]): Promise<void> {
  const everywhere = reachesEveryOrganization(actor);
  for (const s of subjects) {
    if (!everywhere && s.organizationId !== undefined && s.organizationId !== actor.organizationId) {
      failures.push({ ref: s.ref, code: 'organization', error: s.current ? new NotFoundError('Contact not found') : new ForbiddenError() });
      continue;
    }
    if (s.current && !(await within(s.current.role_id))) failures.push({ ref: s.ref, code: 'reach', error: new ForbiddenError() });
    const roleId = s.given.role_id;
    if (roleId !== undefined && !(await within(roleId))) {
      failures.push({ ref: s.ref, code: 'role_reach', error: new ForbiddenError() });
    }
  }
}

/** Whether a role is within the caller's privileges, asked once per role of a batch. */
type RoleReach = (roleId: number) => Promise<boolean>;

function roleReach(trx: Knex.Transaction, actor: AuthContext): RoleReach {
  const reach = new Map<number, boolean>();
  return async (roleId) => {
    if (!reach.has(roleId)) {
      try {
        await assertRoleWithinReach(trx, actor, roleId);
        reach.set(roleId, true);
      } catch (err) {
        if (!(err instanceof ForbiddenError)) throw err;
        reach.set(roleId, false);
      }
    }
    return reach.get(roleId)!;
  };
}

/** Every id given names a row; the department (given, or kept) belongs to the unit the contact will be in. */
async function checkReferences(trx: Knex.Transaction, subjects: Subject[], failures: RuleFailure[]): Promise<void> {
  const found = new Map<string, Map<number, number | null>>();
  for (const [field, table] of REFERENCE_TABLES) {
    const ids = new Set<number>();
    for (const s of subjects) {
      const id = field === 'department_id' ? s.departmentId : s.given[field];
      if (typeof id === 'number') ids.add(id);
    }
    found.set(field, await referencedRows(trx, table, [...ids], field === 'department_id'));
  }
  for (const s of subjects) {
    const errors: FieldError[] = [];
    for (const [field, , message] of REFERENCE_TABLES) {
      const id = s.given[field];
      if (typeof id === 'number' && !found.get(field)!.has(id)) errors.push({ field, message });
    }
    if (errors.length > 0) {
      failures.push({ ref: s.ref, code: 'reference', error: new ValidationError(errors) });
      continue;
    }
    const departmentUnit = typeof s.departmentId === 'number' ? found.get('department_id')!.get(s.departmentId) : undefined;
    if (departmentUnit !== undefined && s.unitId !== undefined && departmentUnit !== s.unitId) {
      failures.push({ ref: s.ref, code: 'reference', error: BadRequestError.field('department_id', 'Department does not belong to the unit') });
    }
  }
}

/**
 * No other user holds a given e-mail or service number (an inactive one still does). A new
 * contact whose e-mail and service number one user holds is that user again: one failure, on
 * the service number.
 */
async function checkTaken(trx: Knex.Transaction, subjects: Subject[], taken: TakenWords, failures: RuleFailure[]): Promise<void> {
  const emails = subjects.flatMap((s) => (s.given.email === undefined ? [] : [s.given.email]));
  const serviceNos = subjects.flatMap((s) => (s.id === null || s.given.service_no !== undefined ? [s.serviceNo] : []));
  const byEmail = new Map((await findUserRows(trx, emails, 'email')).map((u) => [u.email.toLowerCase(), u.id]));
  const bySn = new Map((await findUserRows(trx, serviceNos, 'service_no')).map((u) => [u.service_no, u.id]));
  for (const s of subjects) {
    const emailHolder = s.given.email === undefined ? undefined : byEmail.get(s.given.email.toLowerCase());
    const snHolder = s.id === null || s.given.service_no !== undefined ? bySn.get(s.serviceNo) : undefined;
    const other = (holder: number | undefined) => holder !== undefined && holder !== s.id;
    if (other(emailHolder) && !(s.id === null && emailHolder === snHolder)) failures.push({ ref: s.ref, code: 'taken', error: taken('email') });
    if (other(snHolder)) failures.push({ ref: s.ref, code: 'taken', error: taken('service_no') });
  }
  await checkExternalIds(trx, subjects, taken, failures);
}

/** An identity provider's id (SCIM externalId) names one contact of an organization. */
async function checkExternalIds(trx: Knex.Transaction, subjects: Subject[], taken: TakenWords, failures: RuleFailure[]): Promise<void> {
  const given = subjects.filter((s) => typeof s.given.external_id === 'string' && s.organizationId !== undefined);
  for (const organizationId of new Set(given.map((s) => s.organizationId!))) {
    const mine = given.filter((s) => s.organizationId === organizationId);
    const holders = await externalIdHolders(trx, organizationId, mine.map((s) => s.given.external_id!));
    for (const s of mine) {
      const holder = holders.get(s.given.external_id!);
      if (holder !== undefined && holder !== s.id) failures.push({ ref: s.ref, code: 'taken', error: taken('external_id') });
    }
  }
}


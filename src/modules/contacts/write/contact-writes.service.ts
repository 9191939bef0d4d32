import type { Knex } from 'knex';
import type { Db } from '../../../lib/db';
import { rowPreconditionsHold, UNCONDITIONAL, type Preconditions } from '../../../lib/http/conditional';
import { BadRequestError, ForbiddenError, NotFoundError, PreconditionFailedError } from '../../../lib/errors';
import { changesOf, type Actor, type AuditTrail, type Changes } from '../../audit';
import { ROLE_ID, type PasswordHasher } from '../../access';
import type { ContactReads } from '../read/contact-reads.service';
import type { TreeScope } from '../read/formats';
import { contactRowTag } from '../domain/contact.record';
import { findUserRow, findUserRows, type UserRow } from '../data/users.queries';
import { deactivateContacts, insertContact, moveContacts, updateContact, type ContactChanges, type ContactInsert, type Orphan } from '../data/contact.writer';
import { setPassword } from '../data/account.writer';
import type { ContactBatch } from './contact-change';
import { checkContacts, CONTACT_TAKEN, outsideOrganization, throwFirst, type TakenWords } from './contact-rules';
import { byOrganization, changeMany, type BatchOptions, type BatchPlan, type BatchResult } from './contact-batch';
import type { SearchBacklog } from '../data/backlog';
import { changeDirectory, type UniqueClaim } from '../data/uniqueness';
import { deactivate, providerChange } from './lifecycle';

export type CreateContactInput = Omit<ContactInsert, 'password_hash' | 'organization_id' | 'branch' | 'sub_branch'> & {
  password?: string;
};

/** A bulk request that names a contact of another organization: refused whole (one contact alone is 404, as if it did not exist). */
const OUTSIDE = new ForbiddenError('Contacts of another organization cannot be changed');

/** How a writer other than the contacts' endpoints words its change: its audit action, its message for a taken e-mail or service number. */
export interface WriteWords {
  action?: string;
  taken?: TakenWords;
}

/**
 * Changes to the directory by its admins. Each runs in one transaction that holds the
 * directory lock (changeDirectory), so tree changes are serialized and the checks hold until
 * the commit.
 */
export class ContactWrites {
  private readonly db: Db;
  private readonly reads: ContactReads;
  private readonly passwords: PasswordHasher;
  private readonly audit: AuditTrail;
  private readonly backlog: SearchBacklog;

  constructor(deps: { db: Db; reads: ContactReads; passwords: PasswordHasher; audit: AuditTrail; backlog: SearchBacklog }) {
    this.db = deps.db;
    this.reads = deps.reads;
    this.passwords = deps.passwords;
    this.audit = deps.audit;
    this.backlog = deps.backlog;
  }

  /** The contact, active, for a change; 404 otherwise. An inactive contact is read-only. */
  private async activeContact(trx: Knex.Transaction, id: number): Promise<UserRow> {
    const current = await findUserRow(trx, id);
    if (!current || !current.is_active) throw new NotFoundError('Contact not found');
    return current;
  }

  /**
   * With an If-Match (its tags), the contact must still be as the caller read it: 412
   * otherwise. Checked under the directory lock, so no change slips in between; after the
   * checks that would refuse the request anyway (RFC 9110: a precondition only decides
   * between the change and 412).
   */
  private static assertAsRead(current: UserRow, preconditions: Preconditions): void {
    if (!rowPreconditionsHold(preconditions, contactRowTag(current.id, current.updated_at))) {
      throw new PreconditionFailedError('Contact was changed by someone else');
    }
  }

  /** A transaction under the directory lock whose checks are the rules' (contact-rules.ts); the first failure is the answer. */
  private static async check(trx: Knex.Transaction, actor: Actor, batch: Partial<ContactBatch>, taken?: TakenWords): Promise<void> {
    throwFirst(await checkContacts(trx, actor, { creates: batch.creates ?? [], changes: batch.changes ?? [] }, taken));
  }

  async create(input: CreateContactInput, actor: Actor, scope?: TreeScope) {
    const { password, ...fields } = input;
    const id = await this.insert({ ...fields, organization_id: actor.organizationId }, password ?? null, actor);
    return this.reads.written(id, fields.unit_id, scope);
  }

  /**
   * A new contact with its password (hashed here, before the lock), in `fields.organization_id`;
   * `options` give a registration's audit action and its words for a taken e-mail or service number.
   */
  async insert(fields: Omit<ContactInsert, 'password_hash'> & { organization_id: number }, password: string | null, actor: Actor, options: WriteWords = {}): Promise<number> {
    const passwordHash = password ? await this.passwords.hash(password) : null;
    const values = { ...fields, role_id: fields.role_id ?? ROLE_ID.user };
    const taken = options.taken ?? CONTACT_TAKEN;
    const claim: UniqueClaim = { fields, exceptId: null, taken };
    return changeDirectory(
      this.db,
      async (trx) => {
        const parent = values.parent_id === undefined || values.parent_id === null ? null : { id: values.parent_id };
        await ContactWrites.check(trx, actor, { creates: [{ ref: 0, contact: values, parent }] }, taken);
        const created = await insertContact(trx, { ...values, password_hash: passwordHash }, { checked: true });
        await this.audit.record(trx, actor, {
          action: options.action ?? 'contact.create', targetType: 'contact', targetId: created, organizationId: values.organization_id, changes: changesOf(null, values),
        });
        return created;
      },
      claim,
    );
  }

  /** A change of an active contact: the contact as it is now. */
  async update(id: number, changes: ContactChanges, actor: Actor, preconditions: Preconditions = UNCONDITIONAL) {
    await this.change(id, changes, actor, { preconditions });
    return this.reads.get(id);
  }

  /** update without the answer; `options` give a profile's audit action and words. */
  async change(id: number, changes: ContactChanges, actor: Actor, options: WriteWords & { preconditions?: Preconditions } = {}): Promise<void> {
    const taken = options.taken ?? CONTACT_TAKEN;
    const claim: UniqueClaim = { fields: changes, exceptId: id, taken };
    await changeDirectory(
      this.db,
      async (trx) => {
        const current = await this.activeContact(trx, id);
        const { parent_id: parentId, ...fields } = changes;
        const parent = parentId === undefined ? undefined : parentId === null ? null : { id: parentId };
        await ContactWrites.check(trx, actor, { changes: [{ ref: 0, current, changes: fields, parent }] }, taken);
        ContactWrites.assertAsRead(current, options.preconditions ?? UNCONDITIONAL);
        await updateContact(trx, current, changes, { checked: true });
        await this.recordChange(trx, actor, options.action ?? 'contact.update', current, changesOf({ ...current }, changes));
      },
      claim,
    );
  }

  /** A soft delete; with preconditions (If-Match, If-None-Match), only of the contact as the caller read it. */
  async remove(id: number, actor: Actor, preconditions: Preconditions = UNCONDITIONAL): Promise<void> {
    if (id === actor.userId) throw new BadRequestError('You cannot delete your own account');
    await changeDirectory(this.db, async (trx) => {
      const current = await this.activeContact(trx, id);
      if (outsideOrganization(actor, [current]).length > 0) throw new NotFoundError('Contact not found');
      ContactWrites.assertAsRead(current, preconditions);
      const { orphans } = await deactivateContacts(trx, [id]);
      await this.recordChange(trx, actor, 'contact.delete', current, { is_active: [true, false] });
      await this.recordOrphans(trx, actor, orphans);
    });
  }

  async move(id: number, parentId: number | null, actor: Actor, preconditions: Preconditions = UNCONDITIONAL, scope?: TreeScope) {
    const unitId = await changeDirectory(this.db, async (trx) => {
      const current = await this.activeContact(trx, id);
      await ContactWrites.check(trx, actor, { changes: [{ ref: 0, current, changes: {}, parent: parentId === null ? null : { id: parentId } }] });
      ContactWrites.assertAsRead(current, preconditions);
      await updateContact(trx, current, { parent_id: parentId }, { checked: true });
      await this.recordChange(trx, actor, 'contact.move', current, changesOf({ ...current }, { parent_id: parentId }));
      return current.unit_id;
    });
    return this.reads.written(id, unitId, scope);
  }

  async bulkDelete(ids: number[], actor: Actor) {
    if (ids.includes(actor.userId)) throw new BadRequestError('You cannot delete your own account');
    const deleted = await changeDirectory(this.db, async (trx) => {
      const named = await findUserRows(trx, ids);
      if (outsideOrganization(actor, named).length > 0) throw OUTSIDE;
      const { removed, orphans } = await deactivateContacts(trx, ids);
      const done = new Set(removed);
      for (const group of byOrganization(named.filter((r) => done.has(r.id)))) {
        const contactIds = group.map((r) => r.id);
        const entry = { action: 'contact.bulk_delete', targetType: 'contact', targetId: null, targetIds: contactIds };
        await this.audit.record(trx, actor, { ...entry, organizationId: group[0].organization_id, changes: { is_active: [true, false] }, details: { contact_ids: contactIds } });
      }
      await this.recordOrphans(trx, actor, orphans);
      return removed;
    });
    return { deletedCount: deleted.length, contactIds: deleted };
  }

  /** All or nothing: every id must be an active contact, and the parent must suit each of them. */
  async bulkMove(ids: number[], parentId: number | null, actor: Actor) {
    await changeDirectory(this.db, async (trx) => {
      const rows = (await findUserRows(trx, ids)).filter((r) => r.is_active);
      const found = new Set(rows.map((r) => r.id));
      const missing = ids.filter((id) => !found.has(id));
      if (missing.length > 0) throw BadRequestError.field('contactIds', `Contacts not found or inactive: ${missing.join(', ')}`);
      const parent = parentId === null ? null : { id: parentId };
      const failures = await checkContacts(trx, actor, { creates: [], changes: rows.map((current) => ({ ref: current.id, current, changes: {}, parent })) });
      if (failures.some((f) => f.code === 'organization')) throw OUTSIDE;
      throwFirst(failures);
      await moveContacts(trx, rows, parentId);
      for (const group of byOrganization(rows)) {
        const contactIds = group.map((r) => r.id);
        const details = { contact_ids: contactIds, previous_parent_ids: group.map((r) => r.parent_id), parent_id: parentId };
        const entry = { action: 'contact.bulk_move', targetType: 'contact', targetId: null, targetIds: contactIds };
        await this.audit.record(trx, actor, { ...entry, organizationId: group[0].organization_id, details });
      }
    });
    return { movedCount: ids.length, contactIds: ids, new_parent_id: parentId };
  }

  /**
   * A batch of creates and changes (an import's rows), checked whole under the directory lock
   * and written all together or not at all. `plan` reads what it needs in the same
   * transaction and says whether its own checks already failed (`blocked`): then, as in a dry
   * run, the rules still report everything and nothing is written. `audit` gives the one entry
   * for what was written. The new contacts' search grams follow after the commit (backlog.ts).
   */
  async changeMany(actor: Actor, plan: BatchPlan, options: BatchOptions): Promise<BatchResult> {
    const result = await changeMany(this.db, this.audit, actor, plan, options);
    if (result.written && result.written.created.size > 0) this.backlog.schedule();
    return result;
  }

  /** An identity provider's change of a user, which may reactivate it (SCIM `active: true`), and its deactivation (SCIM `active: false`, DELETE): write/lifecycle.ts. */
  providerChange(id: number, changes: ContactChanges, actor: Actor, options: { taken: TakenWords; activate: boolean; preconditions?: Preconditions; revive?: boolean }): Promise<void> {
    return providerChange(this.db, this.audit, { id, changes, actor, ...options, preconditions: options.preconditions ?? UNCONDITIONAL });
  }
  deactivate = (id: number, actor: Actor, options: { deprovision: boolean; preconditions?: Preconditions }): Promise<void> => deactivate(this.db, this.audit, { id, actor, deprovision: options.deprovision, preconditions: options.preconditions ?? UNCONDITIONAL });

  /** Admin password reset (docs/api.md): records `admin_reset` and revokes the contact's tokens. */
  async resetPassword(id: number, newPassword: string, actor: Actor, preconditions: Preconditions = UNCONDITIONAL): Promise<void> {
    const hash = await this.passwords.hash(newPassword);
    // no tree change, but the contact's updated_at changes: under the directory lock, as every
    // other change of a contact, so that the preconditions of each see the others' changes (a
    // reset already changes every contact read's ETag through the account version)
    await changeDirectory(this.db, async (trx) => {
      const current = await this.activeContact(trx, id);
      await ContactWrites.check(trx, actor, { changes: [{ ref: 0, current, changes: {} }] });
      ContactWrites.assertAsRead(current, preconditions);
      await setPassword(trx, { userId: id, hash, changedBy: actor.userId, organizationId: current.organization_id, changeType: 'admin_reset', client: actor.client });
      // the password itself is no field of the trail: the action says it changed
      await this.recordChange(trx, actor, 'contact.password_reset', current, {}, true);
    });
  }

  /**
   * The children a delete made roots, in their own histories: one `contact.bulk_move` entry per
   * organization, its targets the children, `cause: parent_deleted` (docs/audit.md).
   */
  private async recordOrphans(trx: Knex.Transaction, actor: Actor, orphans: readonly Orphan[]): Promise<void> {
    for (const group of byOrganization(orphans)) {
      const contactIds = group.map((o) => o.id);
      const details = { cause: 'parent_deleted', contact_ids: contactIds, previous_parent_ids: group.map((o) => o.parent_id), parent_id: null };
      await this.audit.record(trx, actor, { action: 'contact.bulk_move', targetType: 'contact', targetId: null, targetIds: contactIds, organizationId: group[0].organization_id, details });
    }
  }

  /** One entry for a change of one contact; a change that changed nothing leaves none, unless `always`. */
  private async recordChange(trx: Knex.Transaction, actor: Actor, action: string, target: UserRow, changes: Changes, always = false) {
    if (!always && Object.keys(changes).length === 0) return;
    await this.audit.record(trx, actor, { action, targetType: 'contact', targetId: target.id, organizationId: target.organization_id, changes });
  }
}

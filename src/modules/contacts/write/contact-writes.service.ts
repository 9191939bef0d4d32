import type { Knex } from 'knex';
import { inTransaction, type Db } from '../../../lib/db';
import { ifMatchHolds } from '../../../lib/http/conditional';
import { BadRequestError, NotFoundError, PreconditionFailedError } from '../../../lib/errors';
import { changesOf, type Actor, type AuditTrail, type Changes } from '../../audit';
import { assertRoleWithinReach, ROLE_ID, type PasswordHasher } from '../../access';
import type { ContactReads } from '../read/contact-reads.service';
import { contactRowTag } from '../read/contact.record';
import { findUserRow, findUserRows, type UserRow } from '../read/users.queries';
import { TreeOrder } from '../tree/order';
import { assertParentAllowed, deactivateContacts, insertContact, updateContact, type ContactChanges, type ContactInsert } from './contact.writer';
import { setPassword } from './account.writer';
import { assertChangeReferences, assertReferences } from './references';
import { assertUnique, changeDirectory, type UniqueClaim } from './uniqueness';

export type CreateContactInput = Omit<ContactInsert, 'password_hash' | 'organization_id' | 'branch' | 'sub_branch'> & {
  password?: string;
};

const duplicate = () => new BadRequestError('Service number or email already exists');

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

  constructor(deps: { db: Db; reads: ContactReads; passwords: PasswordHasher; audit: AuditTrail }) {
    this.db = deps.db;
    this.reads = deps.reads;
    this.passwords = deps.passwords;
    this.audit = deps.audit;
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
  private static assertAsRead(current: UserRow, ifMatch: readonly string[]): void {
    if (!ifMatchHolds(ifMatch, contactRowTag(current.id, current.updated_at))) {
      throw new PreconditionFailedError('Contact was changed by someone else');
    }
  }

  async create(input: CreateContactInput, actor: Actor) {
    const { password, ...fields } = input;
    const passwordHash = password ? await this.passwords.hash(password) : null;
    const roleId = fields.role_id ?? ROLE_ID.user;
    const claim: UniqueClaim = { fields, exceptId: null, taken: duplicate };
    const id = await changeDirectory(
      this.db,
      async (trx) => {
        await assertRoleWithinReach(trx, actor, roleId);
        await assertReferences(trx, { ...fields, role_id: roleId }, fields.unit_id);
        await assertUnique(trx, claim);
        const values = { ...fields, role_id: roleId, organization_id: actor.organizationId };
        const created = await insertContact(trx, { ...values, password_hash: passwordHash });
        await this.audit.record(trx, actor, { action: 'contact.create', targetType: 'contact', targetId: created, changes: changesOf(null, values) });
        return created;
      },
      claim,
    );
    const contact = await this.reads.get(id);
    return { contact, tree: await this.reads.unitTreeCompact(contact.unit_id) };
  }

  async update(id: number, changes: ContactChanges, actor: Actor, ifMatch: readonly string[] = []) {
    const claim: UniqueClaim = { fields: changes, exceptId: id, taken: duplicate };
    await changeDirectory(
      this.db,
      async (trx) => {
        const current = await this.activeContact(trx, id);
        await assertRoleWithinReach(trx, actor, current.role_id);
        if (changes.role_id !== undefined) await assertRoleWithinReach(trx, actor, changes.role_id);
        await assertChangeReferences(trx, current, changes);
        await assertUnique(trx, claim);
        ContactWrites.assertAsRead(current, ifMatch);
        await updateContact(trx, current, changes);
        await this.recordChange(trx, actor, 'contact.update', current, changesOf({ ...current }, changes));
      },
      claim,
    );
    return this.reads.get(id);
  }

  async remove(id: number, actor: Actor): Promise<void> {
    if (id === actor.userId) throw new BadRequestError('You cannot delete your own account');
    await changeDirectory(this.db, async (trx) => {
      const current = await this.activeContact(trx, id);
      await deactivateContacts(trx, [id]);
      await this.recordChange(trx, actor, 'contact.delete', current, { is_active: [true, false] });
    });
  }

  async move(id: number, parentId: number | null, actor: Actor, ifMatch: readonly string[] = []) {
    const unitId = await changeDirectory(this.db, async (trx) => {
      const current = await this.activeContact(trx, id);
      await assertRoleWithinReach(trx, actor, current.role_id);
      ContactWrites.assertAsRead(current, ifMatch);
      await updateContact(trx, current, { parent_id: parentId });
      await this.recordChange(trx, actor, 'contact.move', current, changesOf({ ...current }, { parent_id: parentId }));
      return current.unit_id;
    });
    return { contact: await this.reads.get(id), tree: await this.reads.unitTreeCompact(unitId) };
  }

  async bulkDelete(ids: number[], actor: Actor) {
    if (ids.includes(actor.userId)) throw new BadRequestError('You cannot delete your own account');
    const deleted = await changeDirectory(this.db, async (trx) => {
      const removed = await deactivateContacts(trx, ids);
      const rows = await findUserRows(trx, removed);
      for (const group of byOrganization(rows)) {
        const contactIds = group.map((r) => r.id);
        const entry = { action: 'contact.bulk_delete', targetType: 'contact', targetId: null, targetIds: contactIds };
        await this.audit.record(trx, actor, { ...entry, organizationId: group[0].organization_id, changes: { is_active: [true, false] }, details: { contact_ids: contactIds } });
      }
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
      if (parentId !== null) await assertParentAllowed(trx, rows, parentId);
      await new TreeOrder(trx).moveSubtrees(rows.map((r) => r.id), parentId);
      for (const group of byOrganization(rows)) {
        const contactIds = group.map((r) => r.id);
        const details = { contact_ids: contactIds, previous_parent_ids: group.map((r) => r.parent_id), parent_id: parentId };
        const entry = { action: 'contact.bulk_move', targetType: 'contact', targetId: null, targetIds: contactIds };
        await this.audit.record(trx, actor, { ...entry, organizationId: group[0].organization_id, details });
      }
    });
    return { movedCount: ids.length, contactIds: ids, new_parent_id: parentId };
  }

  /** Admin password reset (docs/api.md): records `admin_reset` and revokes the contact's tokens. */
  async resetPassword(id: number, newPassword: string, actor: Actor): Promise<void> {
    const hash = await this.passwords.hash(newPassword);
    // no tree change: no directory lock, and the directory's version stays
    await inTransaction(this.db, async (trx) => {
      const current = await this.activeContact(trx, id);
      await assertRoleWithinReach(trx, actor, current.role_id);
      await setPassword(trx, { userId: id, hash, changedBy: actor.userId, organizationId: current.organization_id, changeType: 'admin_reset', client: actor.client });
      // the password itself is no field of the trail: the action says it changed
      await this.recordChange(trx, actor, 'contact.password_reset', current, {}, true);
    });
  }

  /** One entry for a change of one contact; a change that changed nothing leaves none, unless `always`. */
  private async recordChange(trx: Knex.Transaction, actor: Actor, action: string, target: UserRow, changes: Changes, always = false) {
    if (!always && Object.keys(changes).length === 0) return;
    await this.audit.record(trx, actor, { action, targetType: 'contact', targetId: target.id, organizationId: target.organization_id, changes });
  }
}

/** Rows grouped by their organization: a change of many is one entry per organization it touched. */
function byOrganization(rows: UserRow[]): UserRow[][] {
  const groups = new Map<number, UserRow[]>();
  for (const row of rows) {
    const group = groups.get(row.organization_id);
    if (group) group.push(row);
    else groups.set(row.organization_id, [row]);
  }
  return [...groups.values()];
}

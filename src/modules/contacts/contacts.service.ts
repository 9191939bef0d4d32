import type { Knex } from 'knex';
import { inTransaction, isUniqueViolation, type Db } from '../../lib/db';
import { BadRequestError, NotFoundError } from '../../lib/errors';
import type { AuthContext, ClientInfo } from '../../lib/http/auth-context';
import type { PasswordHasher } from '../auth/passwords';
import { assertRoleWithinReach } from '../auth/privilege';
import { recordPasswordChange } from '../security/security.records';
import type { ContactsQueryService } from './contacts.query.service';
import { assertChangeReferences, assertReferences, findUserRow, findUserRows, takenField, type UserRow } from './contacts.repository';
import { assertParentAllowed, deactivateContacts, insertContact, updateContact, type ContactChanges, type ContactInsert } from './contacts.writer';
import { lockDirectory, TreeOrder } from './tree-order';

export type CreateContactInput = Omit<ContactInsert, 'password_hash' | 'organization_id' | 'branch' | 'sub_branch'> & {
  password?: string;
};

const DUPLICATE = 'Service number or email already exists';

/**
 * Changes to the directory. Each runs in one transaction that starts by locking the directory
 * (lockDirectory), so tree changes are serialized and the checks hold until the commit; a
 * deadlock or lock timeout on MySQL runs the whole transaction again (inTransaction).
 */
export class ContactsService {
  constructor(
    private readonly db: Db,
    private readonly reads: ContactsQueryService,
    private readonly passwords: PasswordHasher,
  ) {}

  /** The contact, active, for a change; 404 otherwise. An inactive contact is read-only. */
  private async activeContact(trx: Knex.Transaction, id: number): Promise<UserRow> {
    const current = await findUserRow(trx, id);
    if (!current || !current.is_active) throw new NotFoundError('Contact not found');
    return current;
  }

  private async assertUnique(trx: Knex.Transaction, fields: { email?: string; service_no?: string }, exceptId: number | null) {
    if (await takenField(trx, fields, exceptId)) throw new BadRequestError(DUPLICATE);
  }

  /** Runs a change; a unique key that a concurrent change won answers like the checks do. */
  private async change<T>(work: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
    try {
      return await inTransaction(this.db, async (trx) => {
        await lockDirectory(trx);
        return work(trx);
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw new BadRequestError(DUPLICATE);
      throw err;
    }
  }

  async create(input: CreateContactInput, actor: AuthContext) {
    const { password, ...fields } = input;
    const passwordHash = password ? await this.passwords.hash(password) : null;
    const roleId = fields.role_id ?? 3;
    const id = await this.change(async (trx) => {
      await assertRoleWithinReach(trx, actor, roleId);
      await assertReferences(trx, { ...fields, role_id: roleId }, fields.unit_id);
      await this.assertUnique(trx, fields, null);
      return insertContact(trx, { ...fields, role_id: roleId, password_hash: passwordHash, organization_id: actor.organizationId });
    });
    const contact = await this.reads.get(id);
    return { contact, tree: await this.reads.unitTreeCompact(contact.unit_id) };
  }

  async update(id: number, changes: ContactChanges, actor: AuthContext) {
    await this.change(async (trx) => {
      const current = await this.activeContact(trx, id);
      await assertRoleWithinReach(trx, actor, current.role_id);
      if (changes.role_id !== undefined) await assertRoleWithinReach(trx, actor, changes.role_id);
      await assertChangeReferences(trx, current, changes);
      await this.assertUnique(trx, changes, id);
      await updateContact(trx, current, changes);
    });
    return this.reads.get(id);
  }

  async remove(id: number, actor: AuthContext): Promise<void> {
    if (id === actor.userId) throw new BadRequestError('You cannot delete your own account');
    await this.change(async (trx) => {
      await this.activeContact(trx, id);
      await deactivateContacts(trx, [id]);
    });
  }

  async move(id: number, parentId: number | null, actor: AuthContext) {
    const unitId = await this.change(async (trx) => {
      const current = await this.activeContact(trx, id);
      await assertRoleWithinReach(trx, actor, current.role_id);
      await updateContact(trx, current, { parent_id: parentId });
      return current.unit_id;
    });
    return { contact: await this.reads.get(id), tree: await this.reads.unitTreeCompact(unitId) };
  }

  async bulkDelete(ids: number[], actor: AuthContext) {
    if (ids.includes(actor.userId)) throw new BadRequestError('You cannot delete your own account');
    const deleted = await this.change((trx) => deactivateContacts(trx, ids));
    return { deletedCount: deleted.length, contactIds: deleted };
  }

  /** All or nothing: every id must be an active contact, and the parent must suit each of them. */
  async bulkMove(ids: number[], parentId: number | null) {
    await this.change(async (trx) => {
      const rows = (await findUserRows(trx, ids)).filter((r) => r.is_active);
      const found = new Set(rows.map((r) => r.id));
      const missing = ids.filter((id) => !found.has(id));
      if (missing.length > 0) throw BadRequestError.field('contactIds', `Contacts not found or inactive: ${missing.join(', ')}`);
      if (parentId !== null) await assertParentAllowed(trx, rows, parentId);
      await new TreeOrder(trx).moveSubtrees(rows.map((r) => r.id), parentId);
    });
    return { movedCount: ids.length, contactIds: ids, new_parent_id: parentId };
  }

  /** Admin password reset (DECISIONS 3): records `admin_reset` and revokes the contact's tokens. */
  async resetPassword(id: number, newPassword: string, actor: AuthContext, client: ClientInfo): Promise<void> {
    const hash = await this.passwords.hash(newPassword);
    await inTransaction(this.db, async (trx) => {
      const current = await this.activeContact(trx, id);
      await assertRoleWithinReach(trx, actor, current.role_id);
      await trx('users')
        .where({ id })
        .update({ password_hash: hash, token_version: trx.raw('token_version + 1'), updated_at: new Date() });
      await recordPasswordChange(trx, {
        userId: id,
        changedBy: actor.userId,
        organizationId: current.organization_id,
        changeType: 'admin_reset',
        client,
      });
    });
  }
}

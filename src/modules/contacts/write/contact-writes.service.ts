import type { Knex } from 'knex';
import { inTransaction, type Db } from '../../../lib/db';
import { BadRequestError, NotFoundError } from '../../../lib/errors';
import type { AuthContext, ClientInfo } from '../../../lib/http/auth-context';
import { assertRoleWithinReach, type PasswordHasher } from '../../access';
import type { ContactReads } from '../read/contact-reads.service';
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

  constructor(deps: { db: Db; reads: ContactReads; passwords: PasswordHasher }) {
    this.db = deps.db;
    this.reads = deps.reads;
    this.passwords = deps.passwords;
  }

  /** The contact, active, for a change; 404 otherwise. An inactive contact is read-only. */
  private async activeContact(trx: Knex.Transaction, id: number): Promise<UserRow> {
    const current = await findUserRow(trx, id);
    if (!current || !current.is_active) throw new NotFoundError('Contact not found');
    return current;
  }

  async create(input: CreateContactInput, actor: AuthContext) {
    const { password, ...fields } = input;
    const passwordHash = password ? await this.passwords.hash(password) : null;
    const roleId = fields.role_id ?? 3;
    const claim: UniqueClaim = { fields, exceptId: null, taken: duplicate };
    const id = await changeDirectory(
      this.db,
      async (trx) => {
        await assertRoleWithinReach(trx, actor, roleId);
        await assertReferences(trx, { ...fields, role_id: roleId }, fields.unit_id);
        await assertUnique(trx, claim);
        return insertContact(trx, { ...fields, role_id: roleId, password_hash: passwordHash, organization_id: actor.organizationId });
      },
      claim,
    );
    const contact = await this.reads.get(id);
    return { contact, tree: await this.reads.unitTreeCompact(contact.unit_id) };
  }

  async update(id: number, changes: ContactChanges, actor: AuthContext) {
    const claim: UniqueClaim = { fields: changes, exceptId: id, taken: duplicate };
    await changeDirectory(
      this.db,
      async (trx) => {
        const current = await this.activeContact(trx, id);
        await assertRoleWithinReach(trx, actor, current.role_id);
        if (changes.role_id !== undefined) await assertRoleWithinReach(trx, actor, changes.role_id);
        await assertChangeReferences(trx, current, changes);
        await assertUnique(trx, claim);
        await updateContact(trx, current, changes);
      },
      claim,
    );
    return this.reads.get(id);
  }

  async remove(id: number, actor: AuthContext): Promise<void> {
    if (id === actor.userId) throw new BadRequestError('You cannot delete your own account');
    await changeDirectory(this.db, async (trx) => {
      await this.activeContact(trx, id);
      await deactivateContacts(trx, [id]);
    });
  }

  async move(id: number, parentId: number | null, actor: AuthContext) {
    const unitId = await changeDirectory(this.db, async (trx) => {
      const current = await this.activeContact(trx, id);
      await assertRoleWithinReach(trx, actor, current.role_id);
      await updateContact(trx, current, { parent_id: parentId });
      return current.unit_id;
    });
    return { contact: await this.reads.get(id), tree: await this.reads.unitTreeCompact(unitId) };
  }

  async bulkDelete(ids: number[], actor: AuthContext) {
    if (ids.includes(actor.userId)) throw new BadRequestError('You cannot delete your own account');
    const deleted = await changeDirectory(this.db, (trx) => deactivateContacts(trx, ids));
    return { deletedCount: deleted.length, contactIds: deleted };
  }

  /** All or nothing: every id must be an active contact, and the parent must suit each of them. */
  async bulkMove(ids: number[], parentId: number | null) {
    await changeDirectory(this.db, async (trx) => {
      const rows = (await findUserRows(trx, ids)).filter((r) => r.is_active);
      const found = new Set(rows.map((r) => r.id));
      const missing = ids.filter((id) => !found.has(id));
      if (missing.length > 0) throw BadRequestError.field('contactIds', `Contacts not found or inactive: ${missing.join(', ')}`);
      if (parentId !== null) await assertParentAllowed(trx, rows, parentId);
      await new TreeOrder(trx).moveSubtrees(rows.map((r) => r.id), parentId);
    });
    return { movedCount: ids.length, contactIds: ids, new_parent_id: parentId };
  }

  /** Admin password reset (docs/api.md): records `admin_reset` and revokes the contact's tokens. */
  async resetPassword(id: number, newPassword: string, actor: AuthContext, client: ClientInfo): Promise<void> {
    const hash = await this.passwords.hash(newPassword);
    // no tree change: no directory lock, and the directory's version stays
    await inTransaction(this.db, async (trx) => {
      const current = await this.activeContact(trx, id);
      await assertRoleWithinReach(trx, actor, current.role_id);
      await setPassword(trx, { userId: id, hash, changedBy: actor.userId, organizationId: current.organization_id, changeType: 'admin_reset', client });
    });
  }
}

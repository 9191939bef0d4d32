import type { Db } from '../../../lib/db';
import { NotFoundError, PreconditionFailedError } from '../../../lib/errors';
import { rowPreconditionsHold, type Preconditions } from '../../../lib/http/conditional';
import { changesOf, type Actor, type AuditTrail } from '../../audit';
import { contactRowTag } from '../domain/contact.record';
import { findUserRow, type UserRow } from '../data/users.queries';
import { deactivateContacts, markDeprovisioned, reactivateContact, updateContact, type ContactChanges } from '../data/contact.writer';
import { changeDirectory, type UniqueClaim } from '../data/uniqueness';
import { checkContacts, outsideOrganization, throwFirst, type TakenWords } from './contact-rules';

/**
 * The changes of a contact's life that only an identity provider makes (SCIM): a change of a
 * user that may bring a deactivated contact back or leave it deactivated, and a deactivation or
 * a delete for good as far as the provider is concerned. ContactWrites calls them; each runs
 * under the directory lock and checks the same rules as every other change (contact-rules.ts).
 */

/** The contact of the caller's organization, active or not, unless deleted by its provider; 404 otherwise. */
async function ownContact(trx: Parameters<typeof findUserRow>[0], actor: Actor, id: number, preconditions: Preconditions, revive = false): Promise<UserRow> {
  const current = await findUserRow(trx, id);
  if (!current || outsideOrganization(actor, [current]).length > 0) throw new NotFoundError('Contact not found');
  if (current.deprovisioned && !revive) throw new NotFoundError('Contact not found');
  if (!rowPreconditionsHold(preconditions, contactRowTag(current.id, current.updated_at))) throw new PreconditionFailedError('Contact was changed by someone else');
  return current;
}

/**
 * A change that an identity provider sends for one of its users, `changes` (parent_id among
 * them) checked as any change is. With `activate`, a deactivated contact becomes active again
 * with it (SCIM `active: true`); without, the contact stays as active or deactivated as it is: a
 * provider keeps a disabled user's attributes in step (Entra ID sends them), and refusing them
 * would fail each of its sync cycles. With `revive`, a contact its provider deleted comes back
 * too (the provider creates it again).
 */
export async function providerChange(
  db: Db,
  audit: AuditTrail,
  args: { id: number; changes: ContactChanges; actor: Actor; preconditions: Preconditions; taken: TakenWords; activate: boolean; revive?: boolean },
): Promise<void> {
  const { id, changes, actor, taken } = args;
  const claim: UniqueClaim = { fields: changes, exceptId: id, taken };
  await changeDirectory(
    db,
    async (trx) => {
      const before = await ownContact(trx, actor, id, args.preconditions, args.revive);
      const staying = before.is_active || !args.activate;
      const current = staying ? before : await reactivateContact(trx, before);
      const { parent_id: parentId, ...fields } = changes;
      const parent = parentId === undefined ? undefined : parentId === null ? null : { id: parentId };
      throwFirst(await checkContacts(trx, actor, { creates: [], changes: [{ ref: 0, current, changes: fields, parent }] }, taken));
      await updateContact(trx, current, changes, { checked: true });
      const recorded = changesOf({ ...before }, staying ? changes : { ...changes, is_active: true });
      if (Object.keys(recorded).length > 0) {
        const action = staying ? 'contact.update' : 'contact.reactivate';
        await audit.record(trx, actor, { action, targetType: 'contact', targetId: id, organizationId: current.organization_id, changes: recorded });
      }
    },
    claim,
  );
}

/**
 * The contact deactivated (if it was not): SCIM's `active: false`; with `deprovision`, also marked
 * deleted by its identity provider (SCIM DELETE). Within the caller's reach by organization and
 * by role, as every change: a token acting as an Admin does not deactivate a Super_admin.
 */
export async function deactivate(db: Db, audit: AuditTrail, args: { id: number; actor: Actor; preconditions: Preconditions; deprovision: boolean }): Promise<void> {
  const { id, actor } = args;
  await changeDirectory(db, async (trx) => {
    const current = await ownContact(trx, actor, id, args.preconditions);
    throwFirst(await checkContacts(trx, actor, { creates: [], changes: [{ ref: 0, current, changes: {} }] }));
    const { orphans } = current.is_active ? await deactivateContacts(trx, [id]) : { orphans: [] };
    if (args.deprovision) await markDeprovisioned(trx, id);
    if (current.is_active || args.deprovision) {
      const action = args.deprovision ? 'contact.deprovision' : 'contact.deactivate';
      await audit.record(trx, actor, { action, targetType: 'contact', targetId: id, organizationId: current.organization_id, changes: current.is_active ? { is_active: [true, false] } : {} });
    }
    for (const o of orphans) {
      const details = { cause: 'parent_deleted', contact_ids: [o.id], previous_parent_ids: [o.parent_id], parent_id: null };
      await audit.record(trx, actor, { action: 'contact.bulk_move', targetType: 'contact', targetId: null, targetIds: [o.id], organizationId: o.organization_id, details });
    }
  });
}

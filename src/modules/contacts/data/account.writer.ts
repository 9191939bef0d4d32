import type { Knex } from 'knex';
import { inTransaction, type Db } from '../../../lib/db';
import { recordPasswordChange, type PasswordChangeType } from '../../security';
import { bumpVersion } from '../../access';
import type { ClientInfo } from '../../../lib/http/client';
import { toIsoRequired } from '../../../lib/time';

/**
 * The one write of a password: the new hash, `token_version + 1` (every earlier token of the
 * user stops working), and the password change record, in the caller's transaction.
 * Returns the user's new token version.
 */
export async function setPassword(
  trx: Knex.Transaction,
  change: { userId: number; hash: string; changedBy: number; organizationId: number; changeType: PasswordChangeType; client: ClientInfo },
): Promise<number> {
  // updated_at only grows (a contact's ETag names it): later than now's and than the stored one
  const row = await trx('users').where({ id: change.userId }).first('updated_at');
  const updatedAt = new Date(Math.max(Date.now(), row ? Date.parse(toIsoRequired(row.updated_at)) + 1 : 0));
  await trx('users')
    .where({ id: change.userId })
    .update({ password_hash: change.hash, token_version: trx.raw('token_version + 1'), updated_at: updatedAt });
  // the contact's updated_at changed outside the directory lock: reads' ETags must change
  await bumpVersion(trx, 'account');
  await recordPasswordChange(trx, {
    userId: change.userId,
    changedBy: change.changedBy,
    organizationId: change.organizationId,
    changeType: change.changeType,
    client: change.client,
  });
  const { token_version } = await trx('users').where({ id: change.userId }).first('token_version');
  return Number(token_version);
}

/** Revokes every token of the users holding a role (its permissions changed). */
export async function revokeTokensOfRole(trx: Knex.Transaction, roleId: number): Promise<void> {
  await trx('users').where({ role_id: roleId }).increment('token_version', 1);
}

/** A sign-in: the user is online, seen now. */
export async function markSignedIn(db: Db, userId: number, at: Date): Promise<void> {
  await inTransaction(db, async (trx) => {
    await trx('users').where({ id: userId }).update({ status: 'online', last_seen: at });
    // status and last_seen are in every contact read: their ETags change with the same commit
    await bumpVersion(trx, 'account');
  });
}

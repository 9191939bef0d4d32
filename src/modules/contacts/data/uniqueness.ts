import type { Knex } from 'knex';
import { isUniqueViolation, type Db, type Queryable } from '../../../lib/db';
import type { AppError } from '../../../lib/errors';
import { lockedChange, type ChangeOptions } from './tree/change-queue';

export type UniqueField = 'email' | 'service_no' | 'external_id';

/**
 * The e-mail and service number a change writes, with the contact it may keep them on, and how
 * the caller words one that another user holds (each endpoint has its message).
 */
export interface UniqueClaim {
  fields: { email?: string; service_no?: string };
  exceptId: number | null;
  taken: (field: UniqueField) => AppError;
}

/**
 * Which of an e-mail and a service number another user already holds ('email' first), or
 * null: one query.
 */
export async function takenField(db: Queryable, claim: Pick<UniqueClaim, 'fields' | 'exceptId'>): Promise<UniqueField | null> {
  const { fields, exceptId } = claim;
  if (fields.email === undefined && fields.service_no === undefined) return null;
  const q = db('users').where((w) => {
    if (fields.email !== undefined) w.orWhere('email', fields.email);
    if (fields.service_no !== undefined) w.orWhere('service_no', fields.service_no);
  });
  if (exceptId !== null) q.whereNot({ id: exceptId });
  const holders = await q.limit(2).select('email', 'service_no');
  if (holders.some((h) => fields.email !== undefined && h.email === fields.email)) return 'email';
  return holders.length > 0 ? 'service_no' : null;
}

/** Refuses the change, in the caller's words, when another user holds the e-mail or the service number. */
export async function assertUnique(db: Queryable, claim: UniqueClaim): Promise<void> {
  const taken = await takenField(db, claim);
  if (taken) throw claim.taken(taken);
}

/**
 * Runs a change of the directory: a transaction holding the directory lock from its first
 * statement, run again after a deadlock, and committed with the changes queued beside it unless
 * `options.alone` (lockedChange, lock.ts). With a claim, a unique key that a concurrent writer
 * won answers as assertUnique does: the checks and the race give one message.
 */
export async function changeDirectory<T>(db: Db, work: (trx: Knex.Transaction) => Promise<T>, claim?: UniqueClaim, options: ChangeOptions = {}): Promise<T> {
  try {
    return await lockedChange(db, work, options);
  } catch (err) {
    if (claim && isUniqueViolation(err)) await assertUnique(db, claim);
    throw err;
  }
}

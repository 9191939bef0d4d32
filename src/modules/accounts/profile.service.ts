import { changesOf, type Actor, type AuditTrail } from '../audit';
import type { Db } from '../../lib/db';
import { ConflictError, NotFoundError } from '../../lib/errors';
import {
  assertChangeReferences,
  assertUnique,
  changeDirectory,
  findUser,
  findUserRow,
  updateContact,
  type ContactChanges,
  type UniqueClaim,
  type UniqueField,
} from '../contacts';
import { detailedProfile, profileUser } from './account.shapes';

export type ProfileChanges = Pick<
  ContactChanges,
  | 'name' | 'email' | 'service_no' | 'phone' | 'mobile' | 'alternative_mobile'
  | 'rank_id' | 'unit_id' | 'department_id' | 'designation_id' | 'avatar'
>;

const TAKEN: Record<UniqueField, string> = {
  email: 'Email is already in use by another user',
  service_no: 'Service number is already in use by another user',
};

/** The signed-in user's own profile (docs/api.md, Sign-in, tokens and profile). */
export class ProfileService {
  private readonly db: Db;
  private readonly audit: AuditTrail;

  constructor(deps: { db: Db; audit: AuditTrail }) {
    this.db = deps.db;
    this.audit = deps.audit;
  }

  async getProfile(userId: number) {
    return profileUser(await this.user(userId));
  }

  /** The caller's own row: the actor is also the target. */
  async updateProfile(actor: Actor, changes: ProfileChanges) {
    const { userId } = actor;
    const claim: UniqueClaim = { fields: changes, exceptId: userId, taken: (field) => new ConflictError(TAKEN[field]) };
    await changeDirectory(
      this.db,
      async (trx) => {
        const current = await findUserRow(trx, userId);
        if (!current) throw new NotFoundError('User not found');
        await assertUnique(trx, claim);
        await assertChangeReferences(trx, current, changes);
        await updateContact(trx, current, changes);
        const changed = changesOf({ ...current }, changes);
        if (Object.keys(changed).length > 0) {
          await this.audit.record(trx, actor, { action: 'profile.update', targetType: 'contact', targetId: userId, organizationId: current.organization_id, changes: changed });
        }
      },
      claim,
    );
    return detailedProfile(await this.user(userId));
  }

  private async user(userId: number) {
    const user = await findUser(this.db, userId);
    if (!user) throw new NotFoundError('User not found');
    return user;
  }
}

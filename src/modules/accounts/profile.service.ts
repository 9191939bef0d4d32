import type { Actor } from '../audit';
import type { Db } from '../../lib/db';
import { ConflictError, NotFoundError } from '../../lib/errors';
import { findUser, type ContactChanges, type ContactWrites, type UniqueField } from '../contacts';
import { detailedProfile, profileUser } from './accounts.shapes';

export type ProfileChanges = Pick<
  ContactChanges,
  | 'name' | 'email' | 'service_no' | 'phone' | 'mobile' | 'alternative_mobile'
  | 'rank_id' | 'unit_id' | 'department_id' | 'designation_id' | 'avatar'
>;

const TAKEN: Record<UniqueField, string> = {
  email: 'Email is already in use by another user',
  service_no: 'Service number is already in use by another user',
  // only SCIM writes an external id; the map is total so every field has its words
  external_id: 'External id is already in use by another user',
};

/** The signed-in user's own profile (docs/api.md, Sign-in, tokens and profile). */
export class ProfileService {
  private readonly db: Db;
  private readonly writes: ContactWrites;

  constructor(deps: { db: Db; writes: ContactWrites }) {
    this.db = deps.db;
    this.writes = deps.writes;
  }

  async getProfile(userId: number) {
    return profileUser(await this.user(userId));
  }

  /** The caller's own row, through the contacts' writer: the actor is also the target. */
  async updateProfile(actor: Actor, changes: ProfileChanges) {
    await this.writes.change(actor.userId, changes, actor, { action: 'profile.update', taken: (field) => new ConflictError(TAKEN[field]) });
    return detailedProfile(await this.user(actor.userId));
  }

  private async user(userId: number) {
    const user = await findUser(this.db, userId);
    if (!user) throw new NotFoundError('User not found');
    return user;
  }
}

import { inTransaction, isUniqueViolation, type Db, type Queryable } from '../../lib/db';
import { ConflictError, NotFoundError } from '../../lib/errors';
import { assertChangeReferences, findUserRow, takenField } from '../contacts/contacts.repository';
import { updateContact, type ContactChanges } from '../contacts/contacts.writer';
import { lockDirectory } from '../contacts/tree-order';
import { profileUser, userSummaryQuery } from './auth.users';
import { permissionList } from './privilege';
import { nullableId } from '../../lib/rows';

export type ProfileChanges = Pick<
  ContactChanges,
  | 'name' | 'email' | 'service_no' | 'phone' | 'mobile' | 'alternative_mobile'
  | 'rank_id' | 'unit_id' | 'department_id' | 'designation_id' | 'avatar'
>;

/** The signed-in user's own profile (spec 2.2, 2.3). */
export class ProfileService {
  constructor(private readonly db: Db) {}

  async getProfile(userId: number) {
    const row = await userSummaryQuery(this.db).where('u.id', userId).first();
    if (!row) throw new NotFoundError('User not found');
    return profileUser(row);
  }

  async updateProfile(userId: number, changes: ProfileChanges) {
    await inTransaction(this.db, async (trx) => {
      await lockDirectory(trx);
      const current = await findUserRow(trx, userId);
      if (!current) throw new NotFoundError('User not found');
      await this.assertFreeForProfile(trx, userId, changes);
      await assertChangeReferences(trx, current, changes);
      try {
        await updateContact(trx, current, changes);
      } catch (err) {
        if (!isUniqueViolation(err)) throw err;
        await this.assertFreeForProfile(trx, userId, changes);
        throw err;
      }
    });
    return this.detailedProfile(userId);
  }

  private async assertFreeForProfile(db: Queryable, userId: number, changes: ProfileChanges): Promise<void> {
    const taken = await takenField(db, changes, userId);
    if (taken === 'email') throw new ConflictError('Email is already in use by another user');
    if (taken === 'service_no') throw new ConflictError('Service number is already in use by another user');
  }

  /** The profile after an update (spec 2.3). */
  private async detailedProfile(userId: number) {
    const row = await this.db('users as u')
      .join('units as un', 'un.id', 'u.unit_id')
      .join('designations as ds', 'ds.id', 'u.designation_id')
      .join('roles as r', 'r.id', 'u.role_id')
      .leftJoin('ranks as rk', 'rk.id', 'u.rank_id')
      .leftJoin('departments as d', 'd.id', 'u.department_id')
      .where('u.id', userId)
      .first(
        'u.id', 'u.name', 'u.email', 'u.service_no', 'u.phone', 'u.mobile', 'u.alternative_mobile',
        'u.rank_id', 'u.unit_id', 'u.department_id', 'u.designation_id', 'u.avatar', 'u.role_id',
        'rk.name as rank_name', 'un.name as unit_name', 'un.code as unit_code',
        'd.name as department_name', 'ds.name as designation_name', 'r.name as role_name', 'r.permission_names',
      );
    return {
      id: Number(row.id),
      name: row.name,
      email: row.email,
      service_no: row.service_no,
      phone: row.phone,
      mobile: row.mobile,
      alternative_mobile: row.alternative_mobile,
      rank_id: nullableId(row.rank_id),
      unit_id: Number(row.unit_id),
      department_id: nullableId(row.department_id),
      designation_id: Number(row.designation_id),
      rank_name: row.rank_name,
      unit_name: row.unit_name,
      unit_code: row.unit_code,
      department_name: row.department_name,
      designation_name: row.designation_name,
      avatar: row.avatar,
      role_id: Number(row.role_id),
      role_name: row.role_name,
      permissions: permissionList(row.permission_names),
    };
  }
}

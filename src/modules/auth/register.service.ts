import type { Knex } from 'knex';
import { inTransaction, isUniqueViolation, type Db } from '../../lib/db';
import { ConflictError, ValidationError, type FieldError } from '../../lib/errors';
import type { AuthContext } from '../../lib/http/auth-context';
import { insertContact } from '../contacts/contacts.writer';
import { lockDirectory } from '../contacts/tree-order';
import { registeredUser, userSummaryQuery } from './auth.users';
import type { PasswordHasher } from './passwords';
import { takenField } from '../contacts/contacts.repository';
import { assertRoleWithinReach } from './privilege';

export interface RegisterInput {
  name: string;
  email: string;
  password: string;
  service_no: string;
  unit: string;
  designation: string;
  rank?: string;
  department?: string;
  branch?: string;
  sub_branch?: string;
  role?: string;
  phone?: string;
  mobile?: string;
  alternative_mobile?: string;
  organization_id?: number;
}

const DEFAULT_ROLE = 'User';

/** Registration by an administrator (DECISIONS 4). */
export class RegisterService {
  constructor(
    private readonly db: Db,
    private readonly passwords: PasswordHasher,
  ) {}

  async register(input: RegisterInput, actor: AuthContext) {
    const passwordHash = await this.passwords.hash(input.password);
    const id = await inTransaction(this.db, async (trx) => {
      await lockDirectory(trx);
      const ids = await this.resolveNames(trx, input);
      await assertRoleWithinReach(trx, actor, ids.role_id);
      const organizationId = await this.organizationFor(trx, input, actor);
      await this.assertFreeForRegister(trx, input.email, input.service_no);
      try {
        return await insertContact(trx, {
          name: input.name,
          email: input.email,
          service_no: input.service_no,
          password_hash: passwordHash,
          phone: input.phone ?? null,
          mobile: input.mobile ?? null,
          alternative_mobile: input.alternative_mobile ?? null,
          branch: input.branch ?? null,
          sub_branch: input.sub_branch ?? null,
          organization_id: organizationId,
          ...ids,
        });
      } catch (err) {
        // the unique keys decide a race that the checks above could not see
        if (isUniqueViolation(err)) await this.assertFreeForRegister(trx, input.email, input.service_no);
        throw err;
      }
    });
    return registeredUser(await userSummaryQuery(this.db).where('u.id', id).first());
  }

  private async assertFreeForRegister(trx: Knex.Transaction, email: string, serviceNo: string): Promise<void> {
    const taken = await takenField(trx, { email, service_no: serviceNo }, null);
    if (taken === 'email') throw new ConflictError('User with this email already exists');
    if (taken === 'service_no') throw new ConflictError('User with this service number already exists');
  }

  /** Maps the name-valued register fields to ids, case-insensitively; lists every unknown name. */
  private async resolveNames(trx: Knex.Transaction, input: RegisterInput) {
    const errors: FieldError[] = [];
    const find = async (table: string, field: string, value: string | undefined, where?: object, alsoCode = false) => {
      if (value === undefined) return null;
      const wanted = value.toLowerCase();
      const query = trx(table).select('id', 'name', ...(alsoCode ? ['code'] : []));
      if (where) query.where(where);
      const rows = await query;
      const hit =
        rows.find((r) => String(r.name).toLowerCase() === wanted) ??
        (alsoCode ? rows.find((r) => r.code !== null && String(r.code).toLowerCase() === wanted) : undefined);
      if (!hit) errors.push({ field, message: `Unknown ${field}` });
      return hit ? Number(hit.id) : null;
    };
    const unitId = await find('units', 'unit', input.unit, undefined, true);
    const designationId = await find('designations', 'designation', input.designation);
    const rankId = await find('ranks', 'rank', input.rank);
    const roleId = await find('roles', 'role', input.role ?? DEFAULT_ROLE);
    const departmentId =
      unitId === null ? null : await find('departments', 'department', input.department, { unit_id: unitId });
    if (errors.length > 0) throw new ValidationError(errors);
    return {
      unit_id: unitId!,
      designation_id: designationId!,
      rank_id: rankId,
      role_id: roleId!,
      department_id: departmentId,
    };
  }

  /** The registering user's organization; a caller who manages organizations may name another. */
  private async organizationFor(trx: Knex.Transaction, input: RegisterInput, actor: AuthContext): Promise<number> {
    if (input.organization_id === undefined || !actor.permissions.has('organizations.manage')) {
      return actor.organizationId;
    }
    const exists = await trx('organizations').where({ id: input.organization_id }).first('id');
    if (!exists) throw ValidationError.field('organization_id', 'Unknown organization');
    return input.organization_id;
  }
}

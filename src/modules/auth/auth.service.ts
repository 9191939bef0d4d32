import type { Knex } from 'knex';
import { inTransaction, isUniqueViolation, type Db, type Queryable } from '../../lib/db';
import { BadRequestError, ConflictError, NotFoundError, UnauthorizedError, ValidationError, type FieldError } from '../../lib/errors';
import type { AuthContext, ClientInfo } from '../../lib/http/auth-context';
import { toIso, toIsoRequired } from '../../lib/time';
import { assertChangeReferences, findUserRow } from '../contacts/contacts.repository';
import { insertContact, updateContact, type ContactChanges } from '../contacts/contacts.writer';
import { lockDirectory } from '../contacts/tree-order';
import { FAILED_LOGIN_REASON, recordFailedLogin, recordPasswordChange } from '../security/security.records';
import type { PasswordHasher } from './passwords';
import { assertRoleWithinReach, permissionsOfRole } from './privilege';
import type { TokenService } from './tokens';

export interface LoginInput {
  /** empty or null when the caller signs in with login_id */
  email?: string | null;
  login_id?: string;
  password: string;
}

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

export type ProfileChanges = Pick<
  ContactChanges,
  | 'name' | 'email' | 'service_no' | 'phone' | 'mobile' | 'alternative_mobile'
  | 'rank_id' | 'unit_id' | 'department_id' | 'designation_id' | 'avatar'
>;

const DEFAULT_ROLE = 'User';

/** users joined with the names that the sign-in and profile shapes show. */
function userSummaryQuery(db: Queryable) {
  return db('users as u')
    .join('roles as r', 'r.id', 'u.role_id')
    .join('units as un', 'un.id', 'u.unit_id')
    .leftJoin('ranks as rk', 'rk.id', 'u.rank_id')
    .select(
      'u.id', 'u.name', 'u.email', 'u.service_no', 'u.branch', 'u.status', 'u.last_seen', 'u.created_at',
      'u.is_active', 'u.role_id', 'u.organization_id', 'u.token_version', 'u.password_hash',
      'r.name as role_name', 'un.name as unit_name', 'rk.name as rank_name',
    );
}

type SummaryRow = Record<string, unknown>;

/** The sign-in user (spec 2.2). */
function signInUser(row: SummaryRow) {
  return { ...profileUser(row), created_at: toIsoRequired(row.created_at) };
}

/** The profile read shape: spec 2.2 without created_at. */
function profileUser(row: SummaryRow) {
  return {
    id: Number(row.id),
    name: String(row.name),
    email: String(row.email),
    role: String(row.role_name),
    rank: row.rank_name === null ? null : String(row.rank_name),
    service_no: String(row.service_no),
    unit: String(row.unit_name),
    branch: row.branch === null ? null : String(row.branch),
    status: String(row.status),
    last_seen: toIso(row.last_seen),
  };
}

function tokenSubject(row: SummaryRow) {
  return {
    id: Number(row.id),
    role_name: String(row.role_name),
    organization_id: Number(row.organization_id),
    token_version: Number(row.token_version),
  };
}

export class AuthService {
  constructor(
    private readonly db: Db,
    private readonly tokens: TokenService,
    private readonly passwords: PasswordHasher,
  ) {}

  /**
   * Every failure answers the same 401 after one bcrypt comparison, whatever its cause, and
   * leaves a failed-login record with the cause.
   */
  async login(input: LoginInput, client: ClientInfo) {
    const emailGiven = typeof input.email === 'string' && input.email !== '';
    const identifier = ((emailGiven ? input.email : input.login_id) ?? '').trim();
    const byEmail = identifier.toLowerCase();
    const query = userSummaryQuery(this.db);
    if (emailGiven) query.where('u.email', byEmail);
    else query.where('u.email', byEmail).orWhere('u.service_no', identifier).orderByRaw('u.email = ? desc', [byEmail]);
    const user: SummaryRow | undefined = await query.first();

    const fail = async (reason: (typeof FAILED_LOGIN_REASON)[keyof typeof FAILED_LOGIN_REASON]) => {
      await recordFailedLogin(this.db, {
        loginId: identifier,
        organizationId: user ? Number(user.organization_id) : null,
        reason,
        client,
      });
      return new UnauthorizedError('Invalid credentials');
    };

    if (!user) {
      await this.passwords.verifyNothing(input.password);
      throw await fail(FAILED_LOGIN_REASON.userNotFound);
    }
    const hash = user.password_hash === null ? null : String(user.password_hash);
    const matches = hash ? await this.passwords.verify(input.password, hash) : await this.passwords.verifyNothing(input.password);
    if (!Number(user.is_active)) throw await fail(FAILED_LOGIN_REASON.deactivated);
    if (!matches) throw await fail(FAILED_LOGIN_REASON.invalidPassword);

    const now = new Date();
    await this.db('users').where({ id: user.id }).update({ status: 'online', last_seen: now });
    const signedIn = { ...user, status: 'online', last_seen: now };
    return {
      user: signInUser(signedIn),
      token: this.tokens.signAccess(tokenSubject(signedIn)),
      refreshToken: this.tokens.signRefresh(tokenSubject(signedIn)),
    };
  }

  async refresh(refreshToken: string) {
    const claims = this.tokens.verify(refreshToken, 'refresh');
    const user = claims && (await userSummaryQuery(this.db).where('u.id', claims.userId).first());
    if (!claims || !user || !Number(user.is_active) || Number(user.token_version) !== claims.version) {
      throw new UnauthorizedError('Invalid or expired refresh token');
    }
    return { token: this.tokens.signAccess(tokenSubject(user)) };
  }

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
    const row = await userSummaryQuery(this.db).where('u.id', id).first();
    return {
      id,
      name: String(row.name),
      email: String(row.email),
      role: String(row.role_name),
      rank: row.rank_name === null ? null : String(row.rank_name),
      service_no: String(row.service_no),
      unit: String(row.unit_name),
      branch: row.branch === null ? null : String(row.branch),
      is_active: 1,
      created_at: toIsoRequired(row.created_at),
    };
  }

  private async assertFreeForRegister(trx: Knex.Transaction, email: string, serviceNo: string): Promise<void> {
    if (await trx('users').where({ email }).first('id')) {
      throw new ConflictError('User with this email already exists');
    }
    if (await trx('users').where({ service_no: serviceNo }).first('id')) {
      throw new ConflictError('User with this service number already exists');
    }
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
    if (changes.email !== undefined && (await db('users').where({ email: changes.email }).whereNot({ id: userId }).first('id'))) {
      throw new ConflictError('Email is already in use by another user');
    }
    if (
      changes.service_no !== undefined &&
      (await db('users').where({ service_no: changes.service_no }).whereNot({ id: userId }).first('id'))
    ) {
      throw new ConflictError('Service number is already in use by another user');
    }
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
        'd.name as department_name', 'ds.name as designation_name', 'r.name as role_name',
      );
    const id = (v: unknown) => (v === null ? null : Number(v));
    return {
      id: Number(row.id),
      name: row.name,
      email: row.email,
      service_no: row.service_no,
      phone: row.phone,
      mobile: row.mobile,
      alternative_mobile: row.alternative_mobile,
      rank_id: id(row.rank_id),
      unit_id: Number(row.unit_id),
      department_id: id(row.department_id),
      designation_id: Number(row.designation_id),
      rank_name: row.rank_name,
      unit_name: row.unit_name,
      unit_code: row.unit_code,
      department_name: row.department_name,
      designation_name: row.designation_name,
      avatar: row.avatar,
      role_id: Number(row.role_id),
      role_name: row.role_name,
      permissions: (await permissionsOfRole(this.db, Number(row.role_id))).sort(),
    };
  }

  /**
   * Checks the current password, stores the new hash, records the change and increments
   * token_version, so every earlier token stops working; returns fresh tokens.
   */
  async changePassword(userId: number, input: { currentPassword: string; newPassword: string }, client: ClientInfo) {
    const user = await userSummaryQuery(this.db).where('u.id', userId).first();
    if (!user) throw new NotFoundError('User not found');
    const hash = user.password_hash === null ? null : String(user.password_hash);
    const matches = hash
      ? await this.passwords.verify(input.currentPassword, hash)
      : await this.passwords.verifyNothing(input.currentPassword);
    if (!matches) throw new BadRequestError('Current password is incorrect');
    if (input.newPassword === input.currentPassword) {
      throw new BadRequestError('New password must be different from current password');
    }
    const newHash = await this.passwords.hash(input.newPassword);
    await inTransaction(this.db, async (trx) => {
      await trx('users')
        .where({ id: userId })
        .update({ password_hash: newHash, token_version: trx.raw('token_version + 1'), updated_at: new Date() });
      await recordPasswordChange(trx, {
        userId,
        changedBy: userId,
        organizationId: Number(user.organization_id),
        changeType: 'self',
        client,
      });
    });
    const fresh = await userSummaryQuery(this.db).where('u.id', userId).first();
    return { token: this.tokens.signAccess(tokenSubject(fresh)), refreshToken: this.tokens.signRefresh(tokenSubject(fresh)) };
  }
}

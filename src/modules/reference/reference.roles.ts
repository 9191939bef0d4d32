import type { Knex } from 'knex';
import { isUniqueViolation, type Db, type Queryable } from '../../lib/db';
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../../lib/errors';
import { changesOf, type Actor, type AuditTrail } from '../audit';
import { toIsoRequired } from '../../lib/time';
import { assertRoleWithinReach, type AuthContext, BUILT_IN_ROLE_IDS, permissionList, versionedChange, writeGrants } from '../access';
import { revokeTokensOfRole } from '../contacts';
import type { VersionCondition } from '../../lib/http/conditional';
import { referencePrecondition } from './reference.service';

/** Roles 1-3 carry fixed meaning (Super_admin, Admin, User): they are not changed through the API. */

export interface RoleInput {
  name?: string;
  description?: string | null;
  permissions?: string[];
}

export class RolesService {
  private readonly db: Db;
  private readonly audit: AuditTrail;

  constructor(deps: { db: Db; audit: AuditTrail }) {
    this.db = deps.db;
    this.audit = deps.audit;
  }

  async list() {
    return (await this.db('roles').orderBy('id')).map(toRole);
  }

  async get(id: number, db: Queryable = this.db) {
    const role = await db('roles').where({ id }).first();
    if (!role) throw new NotFoundError('Role not found');
    return toRole(role);
  }

  async permissions() {
    return this.db('permissions').orderBy('name').select('id', 'name', 'description');
  }

  async create(input: Required<Pick<RoleInput, 'name'>> & RoleInput, actor: Actor) {
    return this.write(async (trx) => {
      await this.assertNameFree(trx, input.name, null);
      const now = new Date();
      const [id] = await trx('roles').insert({
        name: input.name,
        description: input.description ?? null,
        created_at: now,
        updated_at: now,
      });
      await this.grant(trx, Number(id), input.permissions ?? [], actor);
      const role = await this.get(Number(id), trx);
      await this.record(trx, actor, 'create', role.id, null, role);
      return role;
    });
  }

  /** `condition`: the request's If-Match and If-None-Match, checked against the reference data's version. */
  async update(id: number, input: RoleInput, actor: Actor, condition?: VersionCondition) {
    return this.write(async (trx) => {
      await this.assertChangeable(trx, id, actor);
      const before = await this.get(id, trx);
      if (input.name !== undefined) await this.assertNameFree(trx, input.name, id);
      const changes: Record<string, unknown> = { updated_at: new Date() };
      if (input.name !== undefined) changes.name = input.name;
      if (input.description !== undefined) changes.description = input.description;
      await trx('roles').where({ id }).update(changes);
      if (input.permissions !== undefined) {
        await this.grant(trx, id, input.permissions, actor);
        // holders of the role keep no token issued for the rights it had
        await revokeTokensOfRole(trx, id);
      }
      const role = await this.get(id, trx);
      await this.record(trx, actor, 'update', id, before, role);
      return role;
    }, condition);
  }

  async remove(id: number, actor: Actor, condition?: VersionCondition) {
    await this.write(async (trx) => {
      await this.assertChangeable(trx, id, actor);
      if (await trx('users').where({ role_id: id }).first('id')) {
        throw new ConflictError('Role is in use and cannot be deleted');
      }
      const before = await this.get(id, trx);
      await trx('roles').where({ id }).delete();
      await this.record(trx, actor, 'delete', id, before, { name: null, description: null, permissions: null });
    }, condition);
  }

  /** A role's name, description and permissions, before and after; roles are filed under the actor's organization. */
  private async record(trx: Knex.Transaction, actor: Actor, verb: string, id: number, before: RoleFields | null, after: RoleFields) {
    const pick = (r: RoleFields) => ({ name: r.name, description: r.description, permissions: r.permissions });
    const changes = changesOf(before ? pick(before) : null, pick(after));
    if (verb === 'update' && Object.keys(changes).length === 0) return;
    await this.audit.record(trx, actor, { action: `role.${verb}`, targetType: 'role', targetId: id, changes });
  }

  /** A change of the roles; a `condition` is checked after the work, whose checks come first (referencePrecondition). */
  private async write<T>(work: (trx: Knex.Transaction) => Promise<T>, condition?: VersionCondition): Promise<T> {
    try {
      // every change of these records changes what reads show: their ETags follow the version
      return await versionedChange(this.db, 'reference', work, referencePrecondition(condition));
    } catch (err) {
      if (isUniqueViolation(err)) throw new ConflictError('A role with this name already exists');
      throw err;
    }
  }

  /** A role exists, is not built in, and holds nothing the caller lacks (the privilege ceiling). */
  private async assertChangeable(trx: Knex.Transaction, id: number, actor: AuthContext) {
    if (!(await trx('roles').where({ id }).forUpdate().first('id'))) throw new NotFoundError('Role not found');
    if (BUILT_IN_ROLE_IDS.includes(id)) throw new ConflictError('Built-in roles cannot be changed or deleted');
    await assertRoleWithinReach(trx, actor, id);
  }

  private async assertNameFree(trx: Knex.Transaction, name: string, id: number | null) {
    const q = trx('roles').whereRaw('LOWER(name) = ?', [name.toLowerCase()]);
    if (id !== null) q.whereNot({ id });
    if (await q.first('id')) throw new ConflictError('A role with this name already exists');
  }

  /**
   * Grants permissions by name, as the role's whole set (its old grants are gone); unknown
   * names fail validation, and nobody grants what they lack.
   */
  private async grant(trx: Knex.Transaction, roleId: number, names: string[], actor: AuthContext) {
    const known = names.length === 0 ? [] : await trx('permissions').whereIn('name', names).select('id', 'name');
    const unknown = names.filter((n) => !known.some((k) => k.name === n));
    if (unknown.length > 0) throw ValidationError.field('permissions', `Unknown permissions: ${unknown.join(', ')}`);
    if (names.some((n) => !actor.permissions.has(n))) throw new ForbiddenError();
    await writeGrants(trx, roleId, known.map((k) => Number(k.id)), 'replace');
  }
}

type RoleFields = Pick<ReturnType<typeof toRole>, 'name' | 'description' | 'permissions'> | Record<'name' | 'description' | 'permissions', null>;

function toRole(row: Record<string, unknown>) {
  return {
    id: Number(row.id),
    name: row.name,
    description: row.description ?? null,
    permissions: permissionList(row.permission_names),
    created_at: toIsoRequired(row.created_at),
    updated_at: toIsoRequired(row.updated_at),
  };
}

import type { Knex } from 'knex';
import { inTransaction, isUniqueViolation, type Db, type Queryable } from '../../lib/db';
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../../lib/errors';
import type { AuthContext } from '../../lib/http/auth-context';
import { toIsoRequired } from '../../lib/time';
import { assertRoleWithinReach, permissionList, writeGrants } from '../access';
import { revokeTokensOfRole } from '../contacts';

/** Roles 1-3 carry fixed meaning (Super_admin, Admin, User): they are not changed through the API. */
const BUILT_IN_ROLE_IDS = [1, 2, 3];

export interface RoleInput {
  name?: string;
  description?: string | null;
  permissions?: string[];
}

export class RolesService {
  private readonly db: Db;

  constructor(deps: { db: Db }) {
    this.db = deps.db;
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

  async create(input: Required<Pick<RoleInput, 'name'>> & RoleInput, actor: AuthContext) {
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
      return this.get(Number(id), trx);
    });
  }

  async update(id: number, input: RoleInput, actor: AuthContext) {
    return this.write(async (trx) => {
      await this.assertChangeable(trx, id, actor);
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
      return this.get(id, trx);
    });
  }

  async remove(id: number, actor: AuthContext) {
    await this.write(async (trx) => {
      await this.assertChangeable(trx, id, actor);
      if (await trx('users').where({ role_id: id }).first('id')) {
        throw new ConflictError('Role is in use and cannot be deleted');
      }
      await trx('roles').where({ id }).delete();
    });
  }

  private async write<T>(work: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
    try {
      return await inTransaction(this.db, work);
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

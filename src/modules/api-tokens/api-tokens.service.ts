import { isForeignKeyViolation, type Db } from '../../lib/db';
import { ForbiddenError, NotFoundError, ValidationError } from '../../lib/errors';
import { paginationOf } from '../../lib/http/paging';
import { pageOf } from '../../lib/http/validate';
import { reachesEveryOrganization } from '../access';
import { changesOf, type Actor, type AuditTrail } from '../audit';
import { organizationExists, ReferenceLookup } from '../reference';
import { newSecret } from './api-token-auth';
import { findToken, insertToken, listTokens, revokeToken, type ScimDefaults } from './api-tokens.queries';
import { API_TOKEN_PAGE } from './api-tokens.validators';

export interface CreateTokenInput {
  name: string;
  scopes: string[];
  expires_at?: Date | null;
  organization_id?: number;
  scim_defaults?: ScimDefaults;
}

/**
 * API tokens (docs/scim.md): an Admin makes and revokes those of the own organization, a
 * Super_admin those of any (`organization_id`, the own by default). Another organization's token
 * is not there for an Admin (404). The secret is answered once, at creation.
 */
export class ApiTokens {
  private readonly db: Db;
  private readonly audit: AuditTrail;

  constructor(deps: { db: Db; audit: AuditTrail }) {
    this.db = deps.db;
    this.audit = deps.audit;
  }

  /**
   * A token of the caller's rights, capped at an Admin's: it deactivates and deletes contacts
   * only when its creator may (`contacts.delete`, a Super_admin's), fixed now, so that a later
   * change of the creator's role does not widen what an existing token does.
   */
  async create(input: CreateTokenInput, actor: Actor) {
    const organizationId = input.organization_id ?? actor.organizationId;
    if (organizationId !== actor.organizationId && !reachesEveryOrganization(actor)) throw new ForbiddenError('An Admin makes tokens of the own organization only');
    if (!(await organizationExists(this.db, organizationId))) throw ValidationError.field('organization_id', 'Organization not found');
    const defaults = input.scim_defaults ? pickDefaults(input.scim_defaults) : null;
    if (defaults) await checkDefaults(this.db, defaults);
    const canDeactivate = actor.permissions.has('contacts.delete');
    const { secret, hash, prefix } = newSecret();
    const id = await this.db.transaction(async (trx) => {
      const created = await insertToken(trx, {
        name: input.name, scopes: input.scopes, organization_id: organizationId, token_hash: hash, prefix, scim_defaults: defaults, can_deactivate: canDeactivate, created_by: actor.userId || null, expires_at: input.expires_at ?? null,
      });
      const changes = changesOf(null, { name: input.name, scopes: input.scopes, expires_at: input.expires_at?.toISOString() ?? null, scim_defaults: defaults, can_deactivate: canDeactivate });
      await this.audit.record(trx, actor, { action: 'api_token.create', targetType: 'api_token', targetId: created, organizationId, changes });
      return created;
    }).catch((err: unknown) => {
      // the organization or a default deleted between the check and the insert
      if (isForeignKeyViolation(err)) throw ValidationError.field('organization_id', 'Organization not found');
      throw err;
    });
    return { token: secret, api_token: (await findToken(this.db, id))! };
  }

  async list(actor: Actor, input: { organization_id?: number; page?: number; limit?: number }) {
    const everywhere = reachesEveryOrganization(actor);
    const { page, limit, offset } = pageOf(input, API_TOKEN_PAGE.defaultLimit);
    const { rows, total } = await listTokens(this.db, everywhere ? input.organization_id : actor.organizationId, { limit, offset });
    return { api_tokens: rows, pagination: paginationOf(page, limit, total) };
  }

  async revoke(id: number, actor: Actor): Promise<void> {
    await this.db.transaction(async (trx) => {
      const token = await findToken(trx, id);
      if (!token || (token.organization_id !== actor.organizationId && !reachesEveryOrganization(actor))) throw new NotFoundError('API token not found');
      await revokeToken(trx, id);
      await this.audit.record(trx, actor, { action: 'api_token.revoke', targetType: 'api_token', targetId: id, organizationId: token.organization_id, changes: { revoked: [false, true] } });
    });
  }
}

/**
 * The defaults name records that exist, and a department of the default unit: refused now (400)
 * rather than at every user the identity provider creates later.
 */
async function checkDefaults(db: Db, d: ScimDefaults): Promise<void> {
  const { lists } = await ReferenceLookup.load(db);
  const missing = (list: Array<{ id: number }>, id: number | null | undefined) => id !== undefined && id !== null && !list.some((r) => r.id === id);
  const problems: Array<{ field: string; message: string }> = [];
  if (missing(lists.units, d.unit_id)) problems.push({ field: 'scim_defaults.unit_id', message: 'Unit not found' });
  if (missing(lists.designations, d.designation_id)) problems.push({ field: 'scim_defaults.designation_id', message: 'Designation not found' });
  if (missing(lists.ranks, d.rank_id)) problems.push({ field: 'scim_defaults.rank_id', message: 'Rank not found' });
  if (d.department_id !== undefined && d.department_id !== null) {
    const department = lists.departments.find((r) => r.id === d.department_id);
    if (!department) problems.push({ field: 'scim_defaults.department_id', message: 'Department not found' });
    else if (department.unit_id !== d.unit_id) problems.push({ field: 'scim_defaults.department_id', message: 'Department must belong to scim_defaults.unit_id' });
  }
  if (problems.length > 0) throw new ValidationError(problems);
}

function pickDefaults(d: ScimDefaults): ScimDefaults {
  return Object.fromEntries(Object.entries(d).filter(([k, v]) => ['unit_id', 'department_id', 'designation_id', 'rank_id'].includes(k) && v !== undefined));
}

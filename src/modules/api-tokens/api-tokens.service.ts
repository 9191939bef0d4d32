import type { Db } from '../../lib/db';
import { ForbiddenError, NotFoundError } from '../../lib/errors';
import { reachesEveryOrganization } from '../access';
import { changesOf, type Actor, type AuditTrail } from '../audit';
import { newSecret } from './api-token-auth';
import { findToken, insertToken, listTokens, revokeToken, type ScimDefaults } from './api-tokens.queries';

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

  async create(input: CreateTokenInput, actor: Actor) {
    const organizationId = input.organization_id ?? actor.organizationId;
    if (organizationId !== actor.organizationId && !reachesEveryOrganization(actor)) throw new ForbiddenError('An Admin makes tokens of the own organization only');
    const { secret, hash, prefix } = newSecret();
    const defaults = input.scim_defaults ? pickDefaults(input.scim_defaults) : null;
    const id = await this.db.transaction(async (trx) => {
      const created = await insertToken(trx, {
        name: input.name, scopes: input.scopes, organization_id: organizationId, token_hash: hash, prefix, scim_defaults: defaults, created_by: actor.userId || null, expires_at: input.expires_at ?? null,
      });
      const changes = changesOf(null, { name: input.name, scopes: input.scopes, expires_at: input.expires_at?.toISOString() ?? null, scim_defaults: defaults });
      await this.audit.record(trx, actor, { action: 'api_token.create', targetType: 'api_token', targetId: created, organizationId, changes });
      return created;
    });
    return { token: secret, api_token: (await findToken(this.db, id))! };
  }

  async list(actor: Actor, organizationId?: number) {
    const everywhere = reachesEveryOrganization(actor);
    return { api_tokens: await listTokens(this.db, everywhere ? organizationId : actor.organizationId) };
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

function pickDefaults(d: ScimDefaults): ScimDefaults {
  return Object.fromEntries(Object.entries(d).filter(([k, v]) => ['unit_id', 'department_id', 'designation_id', 'rank_id'].includes(k) && v !== undefined));
}

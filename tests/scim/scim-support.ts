import request from 'supertest';
import type { TestContext } from '../helpers/context';
import { bearer, createOrganization, createUnit, createUser, type TestUser } from '../helpers/factory';

export const SCIM_JSON = 'application/scim+json';
export const ENTERPRISE = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
export const USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

/**
 * An organization with an Admin, a unit, and a SCIM token whose defaults put new users in that
 * unit. The token is made as docs/scim.md says to connect a provider: by a Super_admin, so that it
 * may deprovision leavers; `by: 'Admin'` makes one of the organization's Admin, which may not.
 */
export async function scimOrganization(ctx: TestContext, by: 'Admin' | 'Super_admin' = 'Super_admin'): Promise<{ organizationId: number; admin: TestUser; unitId: number; secret: string; tokenId: number }> {
  const organizationId = await createOrganization(ctx);
  const unit = await createUnit(ctx);
  const admin = await createUser(ctx, { role: 'Admin', organization_id: organizationId, unit_id: unit.id });
  const maker = by === 'Admin' ? admin : await createUser(ctx, { role: 'Super_admin', unit_id: unit.id });
  const res = await request(ctx.app).post('/api/api-tokens').set(bearer(maker)).send({ name: 'IdP', scopes: ['scim'], organization_id: organizationId, scim_defaults: { unit_id: unit.id } });
  if (res.status !== 201) throw new Error(`token: ${res.status} ${JSON.stringify(res.body)}`);
  return { organizationId, admin, unitId: unit.id, secret: res.body.data.token, tokenId: res.body.data.api_token.id };
}

export const scimAuth = (secret: string) => ({ Authorization: `Bearer ${secret}` });

let n = 0;
/** A realistic RFC 7643 User, as a generic client sends it. */
export function rfcUser(extra: Record<string, unknown> = {}) {
  n += 1;
  const tag = `${Date.now().toString(36)}${process.pid.toString(36)}${n}`;
  return {
    schemas: [USER, ENTERPRISE],
    userName: `Jane.Doe.${tag}@Example.test`,
    name: { givenName: 'Jane', familyName: `Doe${tag}` },
    emails: [{ value: `jane.doe.${tag}@example.test`, type: 'work', primary: true }],
    phoneNumbers: [{ value: '+8801711000000', type: 'work' }, { value: '+8801811000000', type: 'mobile' }],
    [ENTERPRISE]: { employeeNumber: `EMP${tag}`.slice(0, 50) },
    ...extra,
  };
}

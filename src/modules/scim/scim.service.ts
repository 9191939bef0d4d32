import type { Db } from '../../lib/db';
import { NotFoundError, PreconditionFailedError } from '../../lib/errors';
import { rowPreconditionsHold, UNCONDITIONAL, type Preconditions } from '../../lib/http/conditional';
import { ROLE_ID } from '../access';
import type { ApiTokenRecord } from '../api-tokens';
import type { Actor } from '../audit';
import { accountsPage, contactRowTag, deprovisionedAccountId, findAccount, type AccountRecord, type ContactChanges, type ContactWrites, type TakenWords } from '../contacts';
import { invalidValue, ScimError } from './scim.errors';
import { conditionOf } from './scim.filter';
import { changedFields, fromScim, toScim, type ScimFields, type ScimUser } from './scim.mapping';
import { applyPatch, assertRequiredKept } from './scim.patch';
import { referencesOf } from './scim.references';
import { ENTERPRISE_SCHEMA, LIST_SCHEMA, MAX_RESULTS } from './scim.schemas';

const SCIM_NAMES = { email: 'userName', service_no: 'employeeNumber', external_id: 'externalId' } as const;
const TAKEN: TakenWords = (field) => new ScimError(409, 'uniqueness', `${SCIM_NAMES[field]} is already taken`);
const NOT_FOUND = () => new NotFoundError('User not found');
/** An Admin may not delete contacts (the specification): neither may a token an Admin made. */
const NO_DEPROVISIONING = () =>
  new ScimError(403, undefined, 'This token may not deactivate or delete users: a Super_admin must create the token for deprovisioning (POST /api/api-tokens)');

/** What a call knows: who (the token as an Admin of its organization), the token, and the base URL of its links. */
export interface ScimCall {
  actor: Actor;
  token: ApiTokenRecord;
  base: string;
}

/**
 * The Users of a SCIM connection: the contacts of the token's organization. Reads go through
 * contacts' account queries; every write through ContactWrites, under the directory lock and the
 * rules of a contact (organization, references, unique e-mail, service number and external id,
 * the parent in the same organization and unit, no cycle).
 */
export class ScimUsers {
  private readonly db: Db;
  private readonly writes: ContactWrites;

  constructor(deps: { db: Db; writes: ContactWrites }) {
    this.db = deps.db;
    this.writes = deps.writes;
  }

  async list(call: ScimCall, q: { filter?: string; startIndex?: number; count?: number }) {
    const startIndex = Math.max(1, q.startIndex ?? 1);
    const count = Math.min(MAX_RESULTS, Math.max(0, q.count ?? MAX_RESULTS));
    const { total, accounts } = await accountsPage(this.db, call.actor.organizationId, conditionOf(q.filter), { offset: startIndex - 1, limit: count });
    return { schemas: [LIST_SCHEMA], totalResults: total, startIndex, itemsPerPage: accounts.length, Resources: accounts.map((a) => toScim(a, call.base)) };
  }

  async get(call: ScimCall, id: number): Promise<ScimUser> {
    return toScim(await this.account(call, id), call.base);
  }

  async create(call: ScimCall, body: ScimUser): Promise<ScimUser> {
    const f = fromScim(body);
    const serviceNo = f.service_no ?? f.external_id?.slice(0, 50);
    if (!serviceNo) throw invalidValue('employeeNumber (the service number) is required, or an externalId to stand for it');
    const refs = await referencesOf(this.db, f, null, call.token.scim_defaults);
    const fields = { ...this.contactFields(f), ...refs, service_no: serviceNo, role_id: ROLE_ID.user, organization_id: call.actor.organizationId };
    // the provider deleted this user and now creates it again (Entra ID's restore): the same contact comes back
    const deleted = await deprovisionedAccountId(this.db, call.actor.organizationId, f.email);
    if (deleted !== null) {
      const { role_id: _role, organization_id: _org, ...changes } = fields;
      await this.writes.providerChange(deleted, { ...changes, parent_id: f.parent_id ?? null }, call.actor, { taken: TAKEN, activate: true, revive: true });
      if (!f.active) await this.writes.deactivate(deleted, call.actor, { deprovision: false });
      return this.get(call, deleted);
    }
    const id = await this.writes.insert({ ...fields, parent_id: f.parent_id ?? null }, null, call.actor, { action: 'contact.provision', taken: TAKEN });
    if (!f.active) await this.writes.deactivate(id, call.actor, { deprovision: false });
    return this.get(call, id);
  }

  async replace(call: ScimCall, id: number, body: ScimUser, preconditions: Preconditions): Promise<ScimUser> {
    const current = await this.account(call, id, preconditions);
    return this.apply(call, current, fromScim(body), preconditions);
  }

  async patch(call: ScimCall, id: number, body: unknown, preconditions: Preconditions): Promise<ScimUser> {
    const current = await this.account(call, id, preconditions);
    const before = toScim(current, call.base);
    const patched = applyPatch(before, body);
    // a new given or family name with the same display name: the name is made of the parts
    const nameOf = (u: ScimUser) => (u.name && typeof u.name === 'object' ? (u.name as Record<string, unknown>) : undefined);
    const parts = (u: ScimUser) => JSON.stringify([nameOf(u)?.givenName, nameOf(u)?.familyName]);
    if (parts(patched) !== parts(before) && patched.displayName === before.displayName) {
      delete patched.displayName;
      delete nameOf(patched)?.formatted;
    }
    assertRequiredKept(patched);
    const f = fromScim(patched);
    // what a remove took away is cleared, where a PUT that leaves it out keeps it (docs/scim.md)
    if (f.parent_id === undefined && current.parent_id !== null) f.parent_id = null;
    if (f.external_id === undefined && current.external_id !== null) f.external_id = null;
    if (!(patched[ENTERPRISE_SCHEMA] as Record<string, unknown> | undefined)?.employeeNumber) throw new ScimError(400, 'mutability', 'employeeNumber (the service number) cannot be removed');
    return this.apply(call, current, f, preconditions);
  }

  async remove(call: ScimCall, id: number, preconditions: Preconditions): Promise<void> {
    await this.account(call, id);
    if (!call.token.can_deactivate) throw NO_DEPROVISIONING();
    await this.writes.deactivate(id, call.actor, { deprovision: true, preconditions });
  }

  /**
   * The User, 404 when the token does not reach it; with preconditions, 412 when they fail now,
   * before anything else: a write that changes nothing answers a stale If-Match too. The write
   * checks them again under the directory lock.
   */
  private async account(call: ScimCall, id: number, preconditions?: Preconditions): Promise<AccountRecord> {
    const found = await findAccount(this.db, call.actor.organizationId, id);
    if (!found) throw NOT_FOUND();
    if (preconditions && !rowPreconditionsHold(preconditions, contactRowTag(found.id, found.updated_at))) throw new PreconditionFailedError('Contact was changed by someone else');
    return found;
  }

  private contactFields(f: ScimFields) {
    return { name: f.name, email: f.email, phone: f.phone, mobile: f.mobile, alternative_mobile: f.alternative_mobile, ...(f.external_id !== undefined ? { external_id: f.external_id } : {}) };
  }

  /** The User made as `f` says: changed, reactivated or deactivated through ContactWrites. */
  private async apply(call: ScimCall, current: AccountRecord, f: ScimFields, preconditions: Preconditions): Promise<ScimUser> {
    const refs = await referencesOf(this.db, f, current, call.token.scim_defaults);
    const wanted: ContactChanges = { ...this.contactFields(f), ...refs, ...(f.service_no !== undefined ? { service_no: f.service_no } : {}) };
    const changes = changedFields(current, wanted);
    if (f.parent_id !== undefined && f.parent_id !== current.parent_id) changes.parent_id = f.parent_id;
    const changed = Object.keys(changes).length > 0;
    if (f.active) {
      if (changed || !current.is_active) await this.writes.providerChange(current.id, changes, call.actor, { taken: TAKEN, activate: true, preconditions });
    } else if (!current.is_active) {
      // a deactivated User takes its provider's changes and stays deactivated: Entra ID keeps a
      // disabled user's attributes in step, and a refusal would fail each of its sync cycles
      if (changed) await this.writes.providerChange(current.id, changes, call.actor, { taken: TAKEN, activate: false, preconditions });
    } else {
      if (!call.token.can_deactivate) throw NO_DEPROVISIONING();
      // a deactivated contact is read-only (ContactWrites): its last changes go first
      if (Object.keys(changes).length > 0) await this.writes.change(current.id, changes, call.actor, { taken: TAKEN, preconditions });
      await this.writes.deactivate(current.id, call.actor, { deprovision: false, preconditions: Object.keys(changes).length > 0 ? UNCONDITIONAL : preconditions });
    }
    return this.get(call, current.id);
  }
}

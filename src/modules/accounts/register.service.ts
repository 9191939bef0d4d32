import type { Db } from '../../lib/db';
import { ConflictError, NotFoundError, ValidationError } from '../../lib/errors';
import { changesOf, type Actor, type AuditTrail } from '../audit';
import { assertRoleWithinReach, type PasswordHasher } from '../access';
import { assertUnique, changeDirectory, findUser, insertContact, type UniqueClaim, type UniqueField } from '../contacts';
import { organizationExists, resolveReferenceNames } from '../reference';
import { registeredUser } from './account.shapes';

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

const TAKEN: Record<UniqueField, string> = {
  email: 'User with this email already exists',
  service_no: 'User with this service number already exists',
};

/** Registration by an administrator (docs/api.md, Sign-in, tokens and profile). */
export class RegisterService {
  private readonly db: Db;
  private readonly passwords: PasswordHasher;
  private readonly audit: AuditTrail;

  constructor(deps: { db: Db; passwords: PasswordHasher; audit: AuditTrail }) {
    this.db = deps.db;
    this.passwords = deps.passwords;
    this.audit = deps.audit;
  }

  async register(input: RegisterInput, actor: Actor) {
    const passwordHash = await this.passwords.hash(input.password);
    const claim: UniqueClaim = {
      fields: { email: input.email, service_no: input.service_no },
      exceptId: null,
      taken: (field) => new ConflictError(TAKEN[field]),
    };
    const id = await changeDirectory(
      this.db,
      async (trx) => {
        const ids = await resolveReferenceNames(trx, { ...input, role: input.role ?? DEFAULT_ROLE });
        await assertRoleWithinReach(trx, actor, ids.role_id);
        const organizationId = await this.organizationFor(trx, input, actor);
        await assertUnique(trx, claim);
        const values = {
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
        };
        const created = await insertContact(trx, { ...values, password_hash: passwordHash });
        await this.audit.record(trx, actor, { action: 'user.register', targetType: 'contact', targetId: created, organizationId, changes: changesOf(null, values) });
        return created;
      },
      claim,
    );
    const user = await findUser(this.db, id);
    if (!user) throw new NotFoundError('User not found');
    return registeredUser(user);
  }

  /** The registering user's organization; a caller who manages organizations may name another. */
  private async organizationFor(db: Parameters<typeof organizationExists>[0], input: RegisterInput, actor: Actor): Promise<number> {
    if (input.organization_id === undefined || !actor.permissions.has('organizations.manage')) {
      return actor.organizationId;
    }
    if (!(await organizationExists(db, input.organization_id))) throw ValidationError.field('organization_id', 'Unknown organization');
    return input.organization_id;
  }
}

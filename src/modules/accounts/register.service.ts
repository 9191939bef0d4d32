import type { Db } from '../../lib/db';
import { ConflictError, NotFoundError, ValidationError } from '../../lib/errors';
import type { Actor } from '../audit';
import { reachesEveryOrganization } from '../access';
import { findUser, type ContactWrites, type UniqueField } from '../contacts';
import { organizationExists, resolveReferenceNames } from '../reference';
import { registeredUser } from './accounts.shapes';

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
  external_id: 'User with this external id already exists',
};

/** Registration by an administrator (docs/api.md, Sign-in, tokens and profile): a contact created by names, through the contacts' writer. */
export class RegisterService {
  private readonly db: Db;
  private readonly writes: ContactWrites;

  constructor(deps: { db: Db; writes: ContactWrites }) {
    this.db = deps.db;
    this.writes = deps.writes;
  }

  async register(input: RegisterInput, actor: Actor) {
    // the role's reach, the e-mail and the service number are the contacts' writer's rules
    const ids = await resolveReferenceNames(this.db, { ...input, role: input.role ?? DEFAULT_ROLE });
    const fields = {
      name: input.name,
      email: input.email,
      service_no: input.service_no,
      phone: input.phone ?? null,
      mobile: input.mobile ?? null,
      alternative_mobile: input.alternative_mobile ?? null,
      branch: input.branch ?? null,
      sub_branch: input.sub_branch ?? null,
      organization_id: await this.organizationFor(input, actor),
      ...ids,
    };
    const id = await this.writes.insert(fields, input.password, actor, { action: 'user.register', taken: (field) => new ConflictError(TAKEN[field]) });
    const user = await findUser(this.db, id);
    if (!user) throw new NotFoundError('User not found');
    return registeredUser(user);
  }

  /** The registering user's organization; a caller who manages organizations may name another. */
  private async organizationFor(input: RegisterInput, actor: Actor): Promise<number> {
    if (input.organization_id === undefined || !reachesEveryOrganization(actor)) {
      return actor.organizationId;
    }
    if (!(await organizationExists(this.db, input.organization_id))) throw ValidationError.field('organization_id', 'Unknown organization');
    return input.organization_id;
  }
}

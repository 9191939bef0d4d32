import type { TokenSubject } from '../access';
import type { UserRecord } from '../contacts';

/** The user shapes of the account endpoints (docs/api.md, Sign-in, tokens and profile), all from the one user record. */

/** The sign-in user. */
export function signInUser(user: UserRecord) {
  return { ...profileUser(user), created_at: user.created_at };
}

/** The profile read shape: the sign-in user without created_at. */
export function profileUser(user: UserRecord) {
  return { ...namedUser(user), status: user.status, last_seen: user.last_seen };
}

/** The register shape: the names of the new user, active. */
export function registeredUser(user: UserRecord) {
  return { ...namedUser(user), is_active: 1 as const, created_at: user.created_at };
}

/** The profile after an update: ids with their names, and the role's permissions. */
export function detailedProfile(user: UserRecord) {
  return {
    id: user.id,
    name: user.name,
    email: user.email,
    service_no: user.service_no,
    phone: user.phone,
    mobile: user.mobile,
    alternative_mobile: user.alternative_mobile,
    rank_id: user.rank_id,
    unit_id: user.unit_id,
    department_id: user.department_id,
    designation_id: user.designation_id,
    rank_name: user.rank_name,
    unit_name: user.unit_name,
    unit_code: user.unit_code,
    department_name: user.department_name,
    designation_name: user.designation_name,
    avatar: user.avatar,
    role_id: user.role_id,
    role_name: user.role_name,
    permissions: user.permissions,
  };
}

/** The fields every user shape shares: who the user is, by name. */
function namedUser(user: UserRecord) {
  return {
    id: user.id,
    name: user.name,
    email: user.email,
    role: user.role_name,
    rank: user.rank_name,
    service_no: user.service_no,
    unit: user.unit_name,
    branch: user.branch,
  };
}

export function tokenSubject(user: Pick<UserRecord, 'id' | 'role_name' | 'organization_id' | 'token_version'>): TokenSubject {
  return { id: user.id, role_name: user.role_name, organization_id: user.organization_id, token_version: user.token_version };
}

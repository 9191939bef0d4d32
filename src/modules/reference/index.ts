/**
 * Reference data: units, departments, designations, ranks, organizations and roles, the lists
 * a frontend fills its forms from (docs/api.md, Reference data and roles). Uses access for permissions
 * and grants, and contacts to revoke the tokens of a role's holders.
 */
export { DEFAULT_ORGANIZATION_ID, REFERENCE_PAGE, REFERENCE_RESOURCES, organizations, type ResourceSpec } from './reference.resources';
export { referenceRouter } from './reference.router';
export { REFERENCE_CHANGED, ReferenceService } from './reference.service';
export { organizationExists, ReferenceLookup, resolveReferenceNames } from './reference.lookup';
export { RolesService } from './reference.roles';

import type { Actor, AuditTrail } from '../audit';
import { CrudService } from '../../lib/crud';
import type { Db } from '../../lib/db';
import { PreconditionFailedError } from '../../lib/errors';
import type { VersionCondition } from '../../lib/http/conditional';
import { versionedChange, type VersionPrecondition } from '../access';

/** The 412 of a reference record or role whose If-Match or If-None-Match does not hold. */
export const REFERENCE_CHANGED = 'Reference data was changed by someone else';

/** A request's If-Match and If-None-Match as versionedChange's precondition on the reference data's version: 412 unless it holds. */
export function referencePrecondition(condition: VersionCondition | undefined): VersionPrecondition | undefined {
  return condition && { holds: condition, failed: () => new PreconditionFailedError(REFERENCE_CHANGED) };
}

/** Units, departments, designations, ranks and organizations: the generic engine (lib/crud) over the resource definitions. */
export class ReferenceService extends CrudService<Actor> {
  constructor(deps: { db: Db; audit: AuditTrail }) {
    super({
      db: deps.db,
      // every change of these records changes what reads show: their ETags follow the version
      run: (work, condition) => versionedChange(deps.db, 'reference', work, referencePrecondition(condition)),
      // one entry per change that changed something; reference records belong to no organization,
      // so the entry is filed under the actor's (AuditEntry), and an organization is its own
      record: (trx, actor, { resource, verb, id, before, after }) => {
        const organizationId = resource.table === 'organizations' ? id : actor.organizationId;
        return deps.audit.recordChange(trx, actor, { action: `${resource.singular}.${verb}`, targetType: resource.singular, targetId: id, organizationId }, before, after);
      },
    });
  }
}

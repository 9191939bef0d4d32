import type { Actor, AuditTrail } from '../audit';
import { CrudService } from '../../lib/crud';
import type { Db } from '../../lib/db';
import { PreconditionFailedError } from '../../lib/errors';
import { versionedChange } from '../access';
import { LEVELS } from './locations.levels';

/** The 412 of a location write whose If-Match or If-None-Match does not hold. */
export const LOCATIONS_CHANGED = 'Locations were changed by someone else';

interface LevelCounts {
  total: number;
  active: number;
}

/** Countries, divisions, districts and thanas: the generic engine (lib/crud) over the level definitions, and their statistics. */
export class LocationsService extends CrudService<Actor> {
  constructor(deps: { db: Db; audit: AuditTrail }) {
    super({
      db: deps.db,
      // every change of these records changes what reads show: their ETags follow the version; a
      // request's If-Match and If-None-Match are a precondition on it (412 unless it holds)
      run: (work, condition) =>
        versionedChange(deps.db, 'locations', work, condition && { holds: condition, failed: () => new PreconditionFailedError(LOCATIONS_CHANGED) }),
      // locations belong to no organization: the entry is filed under the actor's (AuditEntry); a
      // change that changed nothing (a delete of an inactive record, say) leaves none
      record: (trx, actor, { resource, verb, id, before, after }) =>
        deps.audit.recordChange(trx, actor, { action: `${resource.singular}.${verb}`, targetType: resource.singular, targetId: id }, before, after),
    });
  }

  async statistics(): Promise<Record<string, LevelCounts>> {
    const counts = await Promise.all(
      LEVELS.map(async (level) => {
        const [row] = await this.db(level.table).select(
          this.db.raw('COUNT(*) AS total'),
          this.db.raw('COALESCE(SUM(CASE WHEN is_active = ? THEN 1 ELSE 0 END), 0) AS active', [true]),
        );
        return [level.plural, { total: Number(row.total), active: Number(row.active) }] as const;
      }),
    );
    return Object.fromEntries(counts);
  }
}

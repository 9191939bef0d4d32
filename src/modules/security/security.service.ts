import type { Db } from '../../lib/db';
import { paginationOf } from '../../lib/http/respond';
import { pageOf } from '../../lib/http/validate';
import {
  countsBy,
  failedLoginPage,
  failedLoginRecord,
  failedLoginsOf,
  passwordChangePage,
  passwordChangeRecord,
  passwordChangesOf,
  type FailedLoginFilters,
  type PasswordChangeFilters,
} from './security.queries';
import type { SecurityScope } from './security.scope';
import { CHANGE_TYPES, RECENT_EVENTS, SECURITY_PAGE } from './security.validators';

export interface PageInput {
  page?: number;
  limit?: number;
}

/** How many login identifiers and addresses the failed-login summary ranks. */
export const TOP_COUNT = 10;
const DAY_MS = 24 * 60 * 60 * 1000;

const countOf = (v: unknown) => Number(v ?? 0);

/**
 * The security-record lists (DECISIONS section 6). Each list and its summary are computed
 * from one filtered query within the caller's scope: a page of rows plus a few GROUP BY
 * aggregates, never a query per row. The caller's scope comes from scopeOf.
 */
export class SecurityService {
  constructor(
    private readonly db: Db,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async listFailedLogins(scope: SecurityScope, input: FailedLoginFilters & PageInput) {
    const { page, limit, offset } = pageOf(input, SECURITY_PAGE.defaultLimit);
    const since = new Date(this.now().getTime() - DAY_MS);
    const filtered = () => failedLoginsOf(this.db, scope, input);
    const [totals, rows, byReason, topLoginIds, topIps] = await Promise.all([
      filtered().first(
        this.db.raw('COUNT(*) as total'),
        this.db.raw('SUM(CASE WHEN f.attempted_at >= ? THEN 1 ELSE 0 END) as last_24h', [since]),
      ),
      failedLoginPage(this.db, filtered(), { limit, offset }),
      countsBy(filtered(), 'f.reason'),
      countsBy(filtered(), 'f.login_id', TOP_COUNT),
      countsBy(filtered(), 'f.ip_address', TOP_COUNT),
    ]);
    const total = countOf(totals?.total);
    return {
      attempts: rows.map(failedLoginRecord),
      summary: {
        total,
        unique_login_ids: topLoginIds.distinct,
        unique_ips: topIps.distinct,
        by_reason: Object.fromEntries(byReason.values.map((r) => [r.value, r.count])),
        last_24h: countOf(totals?.last_24h),
        top_login_ids: topLoginIds.values.map((r) => ({ login_id: r.value, count: r.count })),
        top_ips: topIps.values.map((r) => ({ ip_address: r.value, count: r.count })),
      },
      pagination: paginationOf(page, limit, total),
    };
  }

  async listPasswordChanges(scope: SecurityScope, input: PasswordChangeFilters & PageInput) {
    const { page, limit, offset } = pageOf(input, SECURITY_PAGE.defaultLimit);
    const since = new Date(this.now().getTime() - DAY_MS);
    const filtered = () => passwordChangesOf(this.db, scope, input);
    const [totals, rows, byType] = await Promise.all([
      filtered().first(
        this.db.raw('COUNT(*) as total'),
        this.db.raw('SUM(CASE WHEN p.changed_at >= ? THEN 1 ELSE 0 END) as last_24h', [since]),
      ),
      passwordChangePage(this.db, filtered(), { limit, offset }),
      countsBy(filtered(), 'p.change_type'),
    ]);
    const total = countOf(totals?.total);
    // every type is listed, with 0 when there is none
    const byTypeCounts = Object.fromEntries(CHANGE_TYPES.map((type) => [type, 0]));
    for (const r of byType.values) byTypeCounts[r.value] = r.count;
    return {
      changes: rows.map(passwordChangeRecord),
      summary: { total, by_type: byTypeCounts, last_24h: countOf(totals?.last_24h) },
      pagination: paginationOf(page, limit, total),
    };
  }

  /**
   * The newest `limit` records of both kinds together: the newest `limit` of each kind, merged.
   * Ties in time go by kind (failed_login first), then by id, newest first.
   */
  async recentEvents(scope: SecurityScope, input: { limit?: number }) {
    const limit = input.limit ?? RECENT_EVENTS.defaultLimit;
    const [failed, changed]: Array<Array<Record<string, unknown>>> = await Promise.all([
      failedLoginPage(this.db, failedLoginsOf(this.db, scope), { limit, offset: 0 }),
      passwordChangePage(this.db, passwordChangesOf(this.db, scope), { limit, offset: 0 }),
    ]);
    const events = [
      ...failed.map(failedLoginRecord).map((r) => ({ type: 'failed_login' as const, at: r.attempted_at, ...r })),
      ...changed.map(passwordChangeRecord).map((r) => ({ type: 'password_change' as const, at: r.changed_at, ...r })),
    ];
    events.sort((a, b) => Date.parse(b.at) - Date.parse(a.at) || a.type.localeCompare(b.type) || b.id - a.id);
    return { events: events.slice(0, limit) };
  }
}

import type { Knex } from 'knex';
import { TtlCache } from '../../lib/cache';
import { compareCodePoints } from '../../lib/text';
import type { Db } from '../../lib/db';
import { paginationOf } from '../../lib/http/paging';
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
import { CHANGE_TYPES } from './security.records';
import { RECENT_EVENTS, SECURITY_PAGE } from './security.validators';

export interface PageInput {
  page?: number;
  limit?: number;
}

/** How many login identifiers and addresses the failed-login summary ranks. */
export const TOP_COUNT = 10;
const DAY_MS = 24 * 60 * 60 * 1000;

const countOf = (v: unknown) => Number(v ?? 0);

type Counts = { distinct: number; values: Array<{ value: string; count: number }> };

/** Counts per value, largest first, ties by value (code point order, as the database sorts them). */
function ranked(map: Map<string, number>): Counts {
  const values = [...map].map(([value, count]) => ({ value, count }));
  values.sort((a, b) => b.count - a.count || compareCodePoints(a.value, b.value));
  return { distinct: map.size, values };
}

function summaryShape(total: number, last24h: number, byReason: Counts, loginIds: Counts, ips: Counts) {
  return {
    total,
    unique_login_ids: loginIds.distinct,
    unique_ips: ips.distinct,
    by_reason: Object.fromEntries(byReason.values.map((r) => [r.value, r.count])),
    last_24h: last24h,
    top_login_ids: loginIds.values.slice(0, TOP_COUNT).map((r) => ({ login_id: r.value, count: r.count })),
    top_ips: ips.values.slice(0, TOP_COUNT).map((r) => ({ ip_address: r.value, count: r.count })),
  };
}

/**
 * The security-record lists (docs/api.md, Who sees what). Each list and its summary are computed
 * from one filtered query within the caller's scope: a page of rows plus a few GROUP BY
 * aggregates, never a query per row. The caller's scope comes from scopeOf.
 */
export class SecurityService {
  /**
   * Summaries aggregate every row the filters select (a year of failed sign-ins is a million
   * rows, over a second of work); they are computed at most once per `summaryCacheMs` for the
   * same scope and filters, and carry the time they were computed. The rows are always fresh.
   */
  private readonly summaries: TtlCache<Record<string, unknown>>;

  private readonly db: Db;
  private readonly now: () => Date;
  /** the most rows a summary counts in this process; more are counted by the database */
  private readonly inProcessMax: number;

  constructor(deps: { db: Db; summaryCacheMs?: number; now?: () => Date; inProcessMax?: number }) {
    this.db = deps.db;
    this.now = deps.now ?? (() => new Date());
    this.inProcessMax = deps.inProcessMax ?? 50_000;
    this.summaries = new TtlCache(deps.summaryCacheMs ?? 0);
  }

  private summaryOf(kind: string, scope: SecurityScope, filters: object, compute: () => Promise<object>) {
    const { page: _page, limit: _limit, ...rest } = filters as PageInput & Record<string, unknown>;
    return this.summaries.get(JSON.stringify([kind, scope, rest]), async () => ({
      ...(await compute()),
      generated_at: this.now().toISOString(),
    }));
  }

  async listFailedLogins(scope: SecurityScope, input: FailedLoginFilters & PageInput) {
    const { page, limit, offset } = pageOf(input, SECURITY_PAGE.defaultLimit);
    const filtered = () => failedLoginsOf(this.db, scope, input);
    const [summary, rows] = await Promise.all([
      this.summaryOf('failed-logins', scope, input, () => this.failedLoginSummary(filtered)),
      failedLoginPage(this.db, filtered(), { limit, offset }),
    ]);
    return {
      attempts: rows.map(failedLoginRecord),
      summary,
      pagination: paginationOf(page, limit, countOf(summary.total)),
    };
  }

  /**
   * The failed-login summary over a filtered set. A set of up to `inProcessMax` rows (a week
   * of a million-row year is ~20,000) is read once, three columns from a covering index, and
   * counted here; a larger one is counted by the database, one GROUP BY per column.
   */
  private async failedLoginSummary(filtered: () => Knex.QueryBuilder) {
    const since = new Date(this.now().getTime() - DAY_MS);
    const [{ total }] = await filtered().count({ total: '*' });
    if (countOf(total) <= this.inProcessMax) {
      const rows: Array<Record<string, unknown>> = await filtered().select(
        'f.reason',
        'f.login_id',
        'f.ip_address',
        this.db.raw('CASE WHEN f.attempted_at >= ? THEN 1 ELSE 0 END as recent', [since]),
      );
      const reasons = new Map<string, number>();
      const loginIds = new Map<string, number>();
      const ips = new Map<string, number>();
      let recent = 0;
      const bump = (map: Map<string, number>, value: unknown) => {
        if (value !== null && value !== undefined) map.set(String(value), (map.get(String(value)) ?? 0) + 1);
      };
      for (const r of rows) {
        bump(reasons, r.reason);
        bump(loginIds, r.login_id);
        bump(ips, r.ip_address);
        recent += Number(r.recent);
      }
      return summaryShape(rows.length, recent, ranked(reasons), ranked(loginIds), ranked(ips));
    }
    const [totals, byReason, topLoginIds, topIps] = await Promise.all([
      filtered().first(this.db.raw('SUM(CASE WHEN f.attempted_at >= ? THEN 1 ELSE 0 END) as last_24h', [since])),
      countsBy(filtered(), 'f.reason'),
      countsBy(filtered(), 'f.login_id', TOP_COUNT),
      countsBy(filtered(), 'f.ip_address', TOP_COUNT),
    ]);
    return summaryShape(countOf(total), countOf(totals?.last_24h), byReason, topLoginIds, topIps);
  }

  async listPasswordChanges(scope: SecurityScope, input: PasswordChangeFilters & PageInput) {
    const { page, limit, offset } = pageOf(input, SECURITY_PAGE.defaultLimit);
    const filtered = () => passwordChangesOf(this.db, scope, input);
    const [summary, rows] = await Promise.all([
      this.summaryOf('password-changes', scope, input, async () => {
        const since = new Date(this.now().getTime() - DAY_MS);
        const [totals, byType] = await Promise.all([
          filtered().first(
            this.db.raw('COUNT(*) as total'),
            this.db.raw('SUM(CASE WHEN p.changed_at >= ? THEN 1 ELSE 0 END) as last_24h', [since]),
          ),
          countsBy(filtered(), 'p.change_type'),
        ]);
        // every type is listed, with 0 when there is none
        const byTypeCounts = Object.fromEntries(CHANGE_TYPES.map((type) => [type, 0]));
        for (const r of byType.values) byTypeCounts[r.value] = r.count;
        return { total: countOf(totals?.total), by_type: byTypeCounts, last_24h: countOf(totals?.last_24h) };
      }),
      passwordChangePage(this.db, filtered(), { limit, offset }),
    ]);
    return {
      changes: rows.map(passwordChangeRecord),
      summary,
      pagination: paginationOf(page, limit, countOf(summary.total)),
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

import type { Format } from './formats';
import type { ListCursor } from '../domain/list-cursor';
import type { ContactFilters, RoleFilter } from '../domain/filters';

/** The validated query of a listing (GET /api/contacts) or of a unit's tree. */
export interface ListInput {
  page?: number;
  limit?: number;
  /** a place in the listing (list-paging.ts), given instead of `page` */
  cursor?: ListCursor;
  search?: string;
  parent_id?: number | null;
  unit_id?: number;
  department_id?: number;
  tree?: boolean;
  format?: Format;
  include_inactive?: boolean;
  role_filter?: RoleFilter;
}

export const CONTACT_PAGE = { defaultLimit: 100, maxLimit: 1000 };
export const CHILDREN_PAGE = { defaultLimit: 100, maxLimit: 1000 };
export const SEARCH_LIMIT = { defaultLimit: 20, maxLimit: 100 };

export function filtersOf(input: ListInput): ContactFilters {
  return {
    search: input.search || undefined,
    unit_id: input.unit_id,
    department_id: input.department_id,
    role_filter: input.role_filter ?? 'all',
    include_inactive: input.include_inactive ?? false,
  };
}

/** An id echoed in `filters`: as a string, as the specification shows them. */
export const idEcho = (v: number | undefined | null) => (v === undefined || v === null ? null : String(v));

/** The filters as a response echoes them. */
export function filtersEcho(f: ContactFilters) {
  return {
    search: f.search ?? '',
    unit_id: idEcho(f.unit_id),
    department_id: idEcho(f.department_id),
    include_inactive: f.include_inactive,
    role_filter: f.role_filter,
  };
}

/**
 * A condition on the accounts of an organization, as an identity provider asks for them (the
 * SCIM module translates a SCIM filter into it; data/accounts.queries.ts into SQL). Only the
 * fields listed here can be named, so nothing a client writes reaches SQL as text.
 */
export const ACCOUNT_FILTER_FIELDS = [
  'email', 'external_id', 'name', 'service_no', 'phone', 'mobile', 'alternative_mobile', 'is_active', 'created_at', 'updated_at', 'id',
] as const;
export type AccountFilterField = (typeof ACCOUNT_FILTER_FIELDS)[number];

export type AccountCompare = 'eq' | 'ne' | 'co' | 'sw' | 'ew' | 'gt' | 'ge' | 'lt' | 'le';

export type AccountCondition =
  | { all: AccountCondition[] }
  | { any: AccountCondition[] }
  | { not: AccountCondition }
  | { field: AccountFilterField; present: true }
  | { field: AccountFilterField; op: AccountCompare; value: string | number | boolean | Date | null }
  /** matches nothing: a filter on an attribute this service does not keep */
  | { none: true };

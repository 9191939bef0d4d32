/**
 * The pieces the document's examples share, so that every operation tells one story without
 * a hand-written body each: the timestamps, a pagination block, and (paths/contacts.examples.ts) one
 * directory in which Ayesha Rahman reports to Kamal Hossain at the Dhaka Regional Office.
 * tests/contract/openapi-examples.test.ts checks every example against its schema.
 */

export const CREATED_AT = '2025-11-02T04:12:45.120Z';
export const UPDATED_AT = '2026-03-14T09:30:12.345Z';
/** when the example request was answered (a summary's generated_at, an audit entry's at) */
export const NOW = '2026-03-14T09:31:05.002Z';
export const times = { created_at: CREATED_AT, updated_at: UPDATED_AT };

/** The `pagination` of a counted list (components.schemas.Pagination, lib/http/paging.ts). */
export const pagination = (total: number, limit: number, page = 1) => {
  const totalPages = Math.ceil(total / limit);
  return { page, limit, total, total_pages: totalPages, has_more: page < totalPages };
};

/** A signed token as a client sees it: three base64url parts (the values here sign nothing). */
const jwt = (payload: string) => `eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.${payload}.Q2hlY2tlZCBieSB0aGUgc2VydmljZSwgbm90IGJ5IHlvdQ`;
export const ACCESS_TOKEN = jwt('eyJpZCI6NDIsInR5cGUiOiJhY2Nlc3MiLCJ2IjowfQ');
export const REFRESH_TOKEN = jwt('eyJpZCI6NDIsInR5cGUiOiJyZWZyZXNoIiwidiI6MH0');

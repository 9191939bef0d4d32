import type { Response } from 'express';

/** The success envelope: {status: "success", message, data}; `data` is `{}` when there is nothing to return. */
export function sendSuccess(res: Response, status: number, message: string, data: unknown = {}): void {
  res.status(status).json({ status: 'success', message, data });
}

/** How long a client is asked to wait before it tries again after a 503 (Retry-After, seconds). */
export const RETRY_AFTER_SECONDS = 5;

/** The body of a 503 for a request the service cannot serve now: the database cannot be reached, or the server is stopping. */
export const SERVICE_UNAVAILABLE = { status: 'error', message: 'Service unavailable' } as const;

export interface Pagination {
  page: number;
  limit: number;
  total: number;
  total_pages: number;
}

export function paginationOf(page: number, limit: number, total: number): Pagination {
  return { page, limit, total, total_pages: Math.ceil(total / limit) };
}

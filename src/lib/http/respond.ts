import type { Response } from 'express';

/** The success envelope: {status: "success", message, data}; `data` is `{}` when there is nothing to return. */
export function sendSuccess(res: Response, status: number, message: string, data: unknown = {}): void {
  res.status(status).json({ status: 'success', message, data });
}

/** sendSuccess for a `data` already serialized (a large answer kept as text: the unit tree). */
export function sendSuccessJson(res: Response, status: number, message: string, dataJson: string): void {
  res.status(status).type('application/json').send(`{"status":"success","message":${JSON.stringify(message)},"data":${dataJson}}`);
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

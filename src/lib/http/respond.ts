import type { Response } from 'express';

/** The success envelope: {status: "success", message, data}; `data` is `{}` when there is nothing to return. */
export function sendSuccess(res: Response, status: number, message: string, data: unknown = {}): void {
  res.status(status).json({ status: 'success', message, data });
}

export interface Pagination {
  page: number;
  limit: number;
  total: number;
  total_pages: number;
}

export function paginationOf(page: number, limit: number, total: number): Pagination {
  return { page, limit, total, total_pages: Math.ceil(total / limit) };
}

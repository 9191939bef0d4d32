import type { Db } from '../../lib/db';
import { NotFoundError } from '../../lib/errors';
import { uncountedPagination } from '../../lib/http/paging';
import { pageOf } from '../../lib/http/validate';
import { eventsPage, type AuditFilters, type AuditScope } from './audit.queries';
import { AUDIT_PAGE } from './audit.validators';

export type AuditListInput = AuditFilters & { page?: number; limit?: number };

/**
 * Reads the audit trail (docs/audit.md). Pages carry no total: counting a million entries on
 * every request would cost more than the page, so a page says whether another follows.
 */
export class AuditLog {
  private readonly db: Db;
  /** whether a contact exists, active or not (the contacts module's; app.ts wires it) */
  private readonly contactExists: (id: number) => Promise<boolean>;

  constructor(deps: { db: Db; contactExists: (id: number) => Promise<boolean> }) {
    this.db = deps.db;
    this.contactExists = deps.contactExists;
  }

  async list(scope: AuditScope, input: AuditListInput) {
    const { page, limit, offset } = pageOf(input, AUDIT_PAGE.defaultLimit);
    const { events, hasMore } = await eventsPage(this.db, scope, input, { limit, offset });
    return { events, pagination: uncountedPagination(page, limit, hasMore) };
  }

  /** GET /api/contacts/:id/history: the entries about one contact, deleted ones included. */
  async contactHistory(scope: AuditScope, id: number, input: Omit<AuditListInput, 'target_type' | 'target_id' | 'actor_id'>) {
    if (!(await this.contactExists(id))) throw new NotFoundError('Contact not found');
    return { contact_id: id, ...(await this.list(scope, { ...input, target_type: 'contact', target_id: id })) };
  }
}

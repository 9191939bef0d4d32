import type { Queryable } from '../../lib/db';
import { canonicalLoginId } from './security.scope';
import type { ClientInfo } from '../../lib/http/client';

/** The reasons sign-in records (docs/api.md, Security records). */
export const FAILED_LOGIN_REASON = {
  userNotFound: 'User not found',
  deactivated: 'Account is deactivated',
  invalidPassword: 'Invalid password',
} as const;
export type FailedLoginReason = (typeof FAILED_LOGIN_REASON)[keyof typeof FAILED_LOGIN_REASON];

export const CHANGE_TYPES = ['self', 'admin_reset', 'forced'] as const;
export type PasswordChangeType = (typeof CHANGE_TYPES)[number];

export async function recordFailedLogin(
  db: Queryable,
  entry: { loginId: string | null; organizationId: number | null; reason: FailedLoginReason; client: ClientInfo },
): Promise<void> {
  await db('failed_login_attempts').insert({
    // stored normalized, so that the lists compare e-mail addresses case-insensitively on the index
    login_id: entry.loginId === null ? null : canonicalLoginId(entry.loginId).slice(0, 100),
    organization_id: entry.organizationId,
    ip_address: entry.client.ip,
    user_agent: entry.client.userAgent,
    reason: entry.reason,
    attempted_at: new Date(),
  });
}

export async function recordPasswordChange(
  db: Queryable,
  entry: { userId: number; changedBy: number; organizationId: number; changeType: PasswordChangeType; client: ClientInfo },
): Promise<void> {
  await db('password_change_logs').insert({
    user_id: entry.userId,
    changed_by: entry.changedBy,
    organization_id: entry.organizationId,
    ip_address: entry.client.ip,
    user_agent: entry.client.userAgent,
    change_type: entry.changeType,
    changed_at: new Date(),
  });
}

import { inTransaction, type Db } from '../../lib/db';
import { BadRequestError, NotFoundError, UnauthorizedError } from '../../lib/errors';
import type { AuthContext, ClientInfo } from '../../lib/http/auth-context';
import { FAILED_LOGIN_REASON, recordFailedLogin, recordPasswordChange } from '../security/security.records';
import { signInUser, tokenSubject, userSummaryQuery, type SummaryRow } from './auth.users';
import type { PasswordHasher } from './passwords';
import type { SessionLoader } from './session';
import type { TokenService, TokenSubject } from './tokens';

export interface LoginInput {
  /** empty or null when the caller signs in with login_id */
  email?: string | null;
  login_id?: string;
  password: string;
}

/** Sign-in, token refresh and password change. */
export class AuthService {
  constructor(
    private readonly db: Db,
    private readonly tokens: TokenService,
    private readonly passwords: PasswordHasher,
    /** the session rules of every request (session.ts), which a refresh obeys too */
    private readonly loadSession: SessionLoader,
  ) {}

  /**
   * Every failure answers the same 401 after one bcrypt comparison, whatever its cause, and
   * leaves a failed-login record with the cause.
   */
  async login(input: LoginInput, client: ClientInfo) {
    const emailGiven = typeof input.email === 'string' && input.email !== '';
    const identifier = ((emailGiven ? input.email : input.login_id) ?? '').trim();
    const byEmail = identifier.toLowerCase();
    const query = userSummaryQuery(this.db);
    if (emailGiven) query.where('u.email', byEmail);
    else query.where('u.email', byEmail).orWhere('u.service_no', identifier).orderByRaw('u.email = ? desc', [byEmail]);
    const user: SummaryRow | undefined = await query.first();

    const fail = async (reason: (typeof FAILED_LOGIN_REASON)[keyof typeof FAILED_LOGIN_REASON]) => {
      await recordFailedLogin(this.db, {
        loginId: identifier,
        organizationId: user ? Number(user.organization_id) : null,
        reason,
        client,
      });
      return new UnauthorizedError('Invalid credentials');
    };

    const matches = await this.passwords.verify(input.password, hashOf(user));
    if (!user) throw await fail(FAILED_LOGIN_REASON.userNotFound);
    if (!Number(user.is_active)) throw await fail(FAILED_LOGIN_REASON.deactivated);
    if (!matches) throw await fail(FAILED_LOGIN_REASON.invalidPassword);

    const now = new Date();
    await this.db('users').where({ id: user.id }).update({ status: 'online', last_seen: now });
    const signedIn = { ...user, status: 'online', last_seen: now };
    return {
      user: signInUser(signedIn),
      token: this.tokens.signAccess(tokenSubject(signedIn)),
      refreshToken: this.tokens.signRefresh(tokenSubject(signedIn)),
    };
  }

  /** A new access token, while the refresh token's user is as the session rules want it (session.ts). */
  async refresh(refreshToken: string) {
    const claims = this.tokens.verify(refreshToken, 'refresh');
    const session = claims && (await this.loadSession(claims.userId, claims.version));
    if (!claims || !session) throw new UnauthorizedError('Invalid or expired refresh token');
    return { token: this.tokens.signAccess(subjectOf(session, claims.version)) };
  }

  /**
   * Checks the current password, stores the new hash, records the change and increments
   * token_version, so every earlier token stops working; returns fresh tokens.
   */
  async changePassword(userId: number, input: { currentPassword: string; newPassword: string }, client: ClientInfo) {
    const user = await userSummaryQuery(this.db).where('u.id', userId).first();
    if (!user) throw new NotFoundError('User not found');
    const matches = await this.passwords.verify(input.currentPassword, hashOf(user));
    if (!matches) throw new BadRequestError('Current password is incorrect');
    if (input.newPassword === input.currentPassword) {
      throw new BadRequestError('New password must be different from current password');
    }
    const newHash = await this.passwords.hash(input.newPassword);
    const tokenVersion = await inTransaction(this.db, async (trx) => {
      await trx('users')
        .where({ id: userId })
        .update({ password_hash: newHash, token_version: trx.raw('token_version + 1'), updated_at: new Date() });
      const { token_version } = await trx('users').where({ id: userId }).first('token_version');
      await recordPasswordChange(trx, {
        userId,
        changedBy: userId,
        organizationId: Number(user.organization_id),
        changeType: 'self',
        client,
      });
      return Number(token_version);
    });
    const subject = tokenSubject({ ...user, token_version: tokenVersion });
    return { token: this.tokens.signAccess(subject), refreshToken: this.tokens.signRefresh(subject) };
  }
}

function subjectOf(session: AuthContext, tokenVersion: number): TokenSubject {
  return { id: session.userId, role_name: session.roleName, organization_id: session.organizationId, token_version: tokenVersion };
}

function hashOf(user: SummaryRow | undefined): string | null {
  return typeof user?.password_hash === 'string' ? user.password_hash : null;
}

import { inTransaction, type Db } from '../../lib/db';
import { BadRequestError, NotFoundError, UnauthorizedError } from '../../lib/errors';
import type { PasswordHasher, SessionLoader, TokenService, TokenSubject } from '../access';
import { findUser, findUserBySignIn, markSignedIn, setPassword, type UserRecord } from '../contacts';
import { FAILED_LOGIN_REASON, recordFailedLogin, type FailedLoginReason } from '../security';
import { signInUser, tokenSubject } from './accounts.shapes';
import type { AuthContext } from '../access';
import type { ClientInfo } from '../../lib/http/client';

export interface LoginInput {
  /** empty or null when the caller signs in with login_id */
  email?: string | null;
  login_id?: string;
  password: string;
}

/** Sign-in, token refresh and password change. */
export class AccountService {
  private readonly db: Db;
  private readonly tokens: TokenService;
  private readonly passwords: PasswordHasher;
  /** the session rules of every request, which a refresh obeys too */
  private readonly loadSession: SessionLoader;

  constructor(deps: { db: Db; tokens: TokenService; passwords: PasswordHasher; loadSession: SessionLoader }) {
    this.db = deps.db;
    this.tokens = deps.tokens;
    this.passwords = deps.passwords;
    this.loadSession = deps.loadSession;
  }

  /**
   * Every failure answers the same 401 after one bcrypt comparison, whatever its cause, and
   * leaves a failed-login record with the cause.
   */
  async login(input: LoginInput, client: ClientInfo) {
    const emailGiven = typeof input.email === 'string' && input.email !== '';
    const identifier = ((emailGiven ? input.email : input.login_id) ?? '').trim();
    const user = await findUserBySignIn(this.db, identifier, !emailGiven);

    const fail = async (reason: FailedLoginReason) => {
      await recordFailedLogin(this.db, { loginId: identifier, organizationId: user ? user.organization_id : null, reason, client });
      return new UnauthorizedError('Invalid credentials');
    };

    const matches = await this.passwords.verify(input.password, user?.password_hash);
    if (!user) throw await fail(FAILED_LOGIN_REASON.userNotFound);
    if (!user.is_active) throw await fail(FAILED_LOGIN_REASON.deactivated);
    if (!matches) throw await fail(FAILED_LOGIN_REASON.invalidPassword);

    const now = new Date();
    await markSignedIn(this.db, user.id, now);
    const signedIn: UserRecord = { ...user, status: 'online', last_seen: now.toISOString() };
    return {
      user: signInUser(signedIn),
      token: this.tokens.signAccess(tokenSubject(signedIn)),
      refreshToken: this.tokens.signRefresh(tokenSubject(signedIn)),
    };
  }

  /** A new access token, while the refresh token's user is as the session rules want it. */
  async refresh(refreshToken: string) {
    const claims = this.tokens.verify(refreshToken, 'refresh');
    const session = claims && (await this.loadSession(claims.userId, claims.version));
    if (!claims || !session) throw new UnauthorizedError('Invalid or expired refresh token');
    return { token: this.tokens.signAccess(subjectOf(session, claims.version)) };
  }

  /**
   * Checks the current password, then sets the new one (setPassword: the hash, the record, and
   * token_version + 1, so every earlier token stops working); returns fresh tokens.
   */
  async changePassword(userId: number, input: { currentPassword: string; newPassword: string }, client: ClientInfo) {
    const user = await findUser(this.db, userId);
    if (!user) throw new NotFoundError('User not found');
    const matches = await this.passwords.verify(input.currentPassword, user.password_hash);
    if (!matches) throw new BadRequestError('Current password is incorrect');
    if (input.newPassword === input.currentPassword) {
      throw new BadRequestError('New password must be different from current password');
    }
    const hash = await this.passwords.hash(input.newPassword);
    const tokenVersion = await inTransaction(this.db, (trx) =>
      setPassword(trx, { userId, hash, changedBy: userId, organizationId: user.organization_id, changeType: 'self', client }),
    );
    const subject = tokenSubject({ ...user, token_version: tokenVersion });
    return { token: this.tokens.signAccess(subject), refreshToken: this.tokens.signRefresh(subject) };
  }
}

function subjectOf(session: AuthContext, tokenVersion: number): TokenSubject {
  return { id: session.userId, role_name: session.roleName, organization_id: session.organizationId, token_version: tokenVersion };
}

/**
 * Accounts: sign-in, token refresh, the own profile, register and change password, served at
 * /api/auth. Built on the contacts' public face (the user row is theirs), access (tokens,
 * hashing, permissions), security (failed sign-in records) and reference (names to ids).
 */
export { AccountService } from './accounts.service';
export { accountsRouter } from './accounts.router';
export { ProfileService } from './profile.service';
export { RegisterService } from './register.service';

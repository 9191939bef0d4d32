import { Router, type RequestHandler } from 'express';
import { actorOf } from '../audit';
import { sendSuccess } from '../../lib/http/respond';
import { inputOf, validate } from '../../lib/http/validate';
import { authOf, requirePermission } from '../access';
import type { AccountService, LoginInput } from './accounts.service';
import type { ProfileChanges, ProfileService } from './profile.service';
import type { RegisterInput, RegisterService } from './register.service';
import { changePasswordRules, loginRules, refreshRules, registerRules, updateProfileRules } from './accounts.validators';
import { clientOf } from '../../lib/http/client';

export interface AccountServices {
  account: AccountService;
  register: RegisterService;
  profile: ProfileService;
}

/** /api/auth: the account flows (docs/api.md, Sign-in, tokens and profile). */
export function accountsRouter(services: AccountServices, deps: { authenticate: RequestHandler; loginLimiters: RequestHandler[] }) {
  const { account: service, register, profile } = services;
  const router = Router();
  const { authenticate } = deps;

  router.post('/login', ...deps.loginLimiters, ...loginRules, validate, async (req, res) => {
    const result = await service.login(inputOf<LoginInput>(req), clientOf(req));
    sendSuccess(res, 200, 'Login successful', result);
  });

  router.post('/register', authenticate, requirePermission('users.register'), ...registerRules, validate, async (req, res) => {
    const user = await register.register(inputOf<RegisterInput>(req), actorOf(req));
    sendSuccess(res, 201, 'User registered successfully', { user });
  });

  router.post('/refresh-token', ...refreshRules, validate, async (req, res) => {
    const result = await service.refresh(inputOf<{ refreshToken: string }>(req).refreshToken);
    sendSuccess(res, 200, 'Token refreshed successfully', result);
  });

  router.get('/profile', authenticate, async (req, res) => {
    const user = await profile.getProfile(authOf(req).userId);
    sendSuccess(res, 200, 'Profile retrieved successfully', { user });
  });

  router.put('/profile', authenticate, ...updateProfileRules, validate, async (req, res) => {
    const user = await profile.updateProfile(actorOf(req), inputOf<ProfileChanges>(req));
    sendSuccess(res, 200, 'Profile updated successfully', { user });
  });

  router.put('/change-password', authenticate, ...changePasswordRules, validate, async (req, res) => {
    const input = inputOf<{ currentPassword: string; newPassword: string }>(req);
    const tokens = await service.changePassword(authOf(req).userId, input, clientOf(req));
    sendSuccess(res, 200, 'Password changed successfully', tokens);
  });

  // Tokens are stateless: signing out is the client discarding them (docs/api.md, Sign-in, tokens and profile).
  router.post('/logout', authenticate, (_req, res) => {
    sendSuccess(res, 200, 'Logout successful');
  });

  return router;
}

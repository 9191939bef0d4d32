import { TokenService } from '../../src/modules/access';
import { testConfig } from '../helpers/config';

/**
 * TokenService remembers the access tokens that verified (a client sends the same one with
 * every request): what it remembers must never accept a token that verification would refuse.
 */
const config = testConfig({ JWT_EXPIRES_IN: '60' }).jwt;
const subject = { id: 42, role_name: 'User', organization_id: 1, token_version: 3 };

afterEach(() => jest.useRealTimers());

test('an access token accepted before is refused once it has expired (past the 30 s tolerance)', () => {
  jest.useFakeTimers({ now: new Date('2026-11-22T10:00:00Z') });
  const tokens = new TokenService(config);
  const token = tokens.signAccess(subject);
  expect(tokens.verify(token, 'access')).toEqual({ userId: 42, version: 3 });
  jest.setSystemTime(new Date('2026-11-22T10:01:29Z'));
  expect(tokens.verify(token, 'access')).toEqual({ userId: 42, version: 3 });
  jest.setSystemTime(new Date('2026-11-22T10:01:30Z'));
  expect(tokens.verify(token, 'access')).toBeNull();
  // and a fresh service, which remembers nothing, agrees
  expect(new TokenService(config).verify(token, 'access')).toBeNull();
});

test('a token differing by one character from an accepted one is refused', () => {
  const tokens = new TokenService(config);
  const token = tokens.signAccess(subject);
  expect(tokens.verify(token, 'access')).not.toBeNull();
  const last = token.at(-1) === 'A' ? 'B' : 'A';
  expect(tokens.verify(token.slice(0, -1) + last, 'access')).toBeNull();
  expect(tokens.verify(`${token}x`, 'access')).toBeNull();
});

test('an accepted access token is still no refresh token, and an accepted refresh token no access token', () => {
  const tokens = new TokenService(config);
  const access = tokens.signAccess(subject);
  const refresh = tokens.signRefresh(subject);
  expect(tokens.verify(access, 'access')).not.toBeNull();
  expect(tokens.verify(refresh, 'refresh')).not.toBeNull();
  expect(tokens.verify(access, 'refresh')).toBeNull();
  expect(tokens.verify(refresh, 'access')).toBeNull();
});

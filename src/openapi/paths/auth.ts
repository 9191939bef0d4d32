import {
  ADMINS,
  ANY_USER,
  arrayOf,
  body,
  constant,
  E403,
  E409,
  errorResponse,
  int,
  nullable,
  obj,
  operation,
  ref,
  str,
  success,
  timestamp,
} from '../builders';
import { ACCESS_TOKEN, CREATED_AT, REFRESH_TOKEN } from '../examples';
import { profileDetails, profileUser, registered, registerExample, signIn } from './auth.examples';

const tags = ['Auth'];
const password = (description: string) => str({ minLength: 1, description });
const newPassword = str({
  minLength: 6,
  description: 'at least 6 characters with a lowercase letter, an uppercase letter and a digit; at most 72 bytes in UTF-8',
});

const signInFields = {
  id: int(),
  name: str(),
  email: str({ format: 'email' }),
  role: str({ description: 'Super_admin, Admin, User or a custom role' }),
  rank: nullable(str()),
  service_no: str(),
  unit: str(),
  branch: nullable(str()),
  status: str({ enum: ['online', 'offline', 'busy'] }),
  last_seen: nullable(timestamp()),
};

export const authSchemas = {
  SignInUser: obj({ ...signInFields, created_at: timestamp() }),
  ProfileUser: obj(signInFields),
  RegisteredUser: obj({
    id: int(),
    name: str(),
    email: str({ format: 'email' }),
    role: str(),
    rank: nullable(str()),
    service_no: str(),
    unit: str(),
    branch: nullable(str()),
    is_active: constant(1),
    created_at: timestamp(),
  }),
  ProfileDetails: obj({
    id: int(),
    name: str(),
    email: str({ format: 'email' }),
    service_no: str(),
    phone: nullable(str()),
    mobile: nullable(str()),
    alternative_mobile: nullable(str()),
    rank_id: nullable(int()),
    unit_id: int(),
    department_id: nullable(int()),
    designation_id: int(),
    rank_name: nullable(str()),
    unit_name: str(),
    unit_code: nullable(str()),
    department_name: nullable(str()),
    designation_name: str(),
    avatar: nullable(str()),
    role_id: int(),
    role_name: str(),
    permissions: arrayOf(str()),
  }),
  Tokens: obj({ token: str(), refreshToken: str() }),
};

export const authPaths = {
  '/api/auth/login': {
    post: operation({
      id: 'login',
      tags,
      summary: 'Sign in',
      description:
        'With `email` (matched case-insensitively) or `login_id` (an e-mail or a service number). Every credential failure answers the same 401 and writes a failed-login record. Limited per client IP and account, an e-mail and a service number of one account counting together (LOGIN_RATE_LIMIT_MAX failures per window), and per client IP across identifiers (LOGIN_IP_RATE_LIMIT_MAX).',
      roles: ['public'],
      public: true,
      requestBody: body({ email: str({ format: 'email' }), login_id: str({ maxLength: 100 }), password: password('at most 72 bytes') }, ['password']),
      requestExample: signIn,
      responses: {
        200: success('Login successful', obj({ user: ref('SignInUser'), token: str(), refreshToken: str() }), {
          user: { ...profileUser, created_at: CREATED_AT },
          token: ACCESS_TOKEN,
          refreshToken: REFRESH_TOKEN,
        }),
        401: errorResponse('Wrong credentials', 'Invalid credentials'),
      },
    }),
  },
  '/api/auth/register': {
    post: operation({
      id: 'registerUser',
      tags,
      summary: 'Register a user',
      description:
        'Names map to ids case-insensitively: `unit` by name or code, `rank` and `designation` by name, `department` by name within the unit, `role` by name (default User). The new user joins the caller\'s organization; a caller with `organizations.manage` may give `organization_id`. Nobody registers a role holding a permission they lack.',
      roles: ADMINS,
      permission: 'users.register',
      requestBody: body(
        {
          name: str({ minLength: 2, maxLength: 100 }),
          email: str({ format: 'email' }),
          password: newPassword,
          service_no: str({ minLength: 1, maxLength: 50 }),
          unit: str({ maxLength: 150 }),
          designation: str({ maxLength: 150 }),
          rank: str({ maxLength: 100 }),
          department: str({ maxLength: 150 }),
          branch: str({ maxLength: 100 }),
          sub_branch: str({ maxLength: 100 }),
          role: str({ maxLength: 50 }),
          phone: str({ maxLength: 20 }),
          mobile: str({ maxLength: 20 }),
          alternative_mobile: str({ maxLength: 20 }),
          organization_id: int({ minimum: 1 }),
        },
        ['name', 'email', 'password', 'service_no', 'unit', 'designation'],
      ),
      requestExample: registerExample,
      responses: {
        201: success('User registered successfully', obj({ user: ref('RegisteredUser') }), { user: registered }),
        403: E403,
        409: E409,
      },
    }),
  },
  '/api/auth/refresh-token': {
    post: operation({
      id: 'refreshToken',
      tags,
      summary: 'A new access token from a refresh token',
      roles: ['public'],
      public: true,
      requestBody: body({ refreshToken: str() }, ['refreshToken']),
      requestExample: { refreshToken: REFRESH_TOKEN },
      responses: {
        200: success('Token refreshed successfully', obj({ token: str() }), { token: ACCESS_TOKEN }),
        401: errorResponse('Bad or expired refresh token, or inactive user', 'Invalid or expired refresh token'),
      },
    }),
  },
  '/api/auth/profile': {
    get: operation({
      id: 'getProfile',
      tags,
      summary: 'The caller\'s profile',
      roles: ANY_USER,
      responses: { 200: success('Profile retrieved successfully', obj({ user: ref('ProfileUser') }), { user: profileUser }) },
    }),
    put: operation({
      id: 'updateProfile',
      tags,
      summary: 'Update the caller\'s profile',
      description: 'Any subset of the fields; others (role_id, is_active, organization_id...) are ignored. A department must belong to the (new) unit.',
      roles: ANY_USER,
      requestBody: body({
        name: str({ minLength: 2, maxLength: 100 }),
        email: str({ format: 'email' }),
        service_no: str({ minLength: 1, maxLength: 20 }),
        phone: str({ maxLength: 20 }),
        mobile: nullable(str({ maxLength: 20 })),
        alternative_mobile: nullable(str({ maxLength: 20 })),
        rank_id: nullable(int({ minimum: 1 })),
        unit_id: int({ minimum: 1 }),
        department_id: nullable(int({ minimum: 1 })),
        designation_id: int({ minimum: 1 }),
        avatar: nullable(str({ maxLength: 500, format: 'uri' })),
      }),
      requestExample: { mobile: '01711000099', avatar: 'https://example.org/avatars/ayesha-rahman.png' },
      responses: {
        200: success('Profile updated successfully', obj({ user: ref('ProfileDetails') }), {
          user: { ...profileDetails, mobile: '01711000099', avatar: 'https://example.org/avatars/ayesha-rahman.png' },
        }),
        409: E409,
      },
    }),
  },
  '/api/auth/change-password': {
    put: operation({
      id: 'changePassword',
      tags,
      summary: 'Change the caller\'s password',
      description: 'Records the change and revokes every earlier token (token_version); the answer carries fresh tokens.',
      roles: ANY_USER,
      requestBody: body({ currentPassword: password('the current password'), newPassword }, ['currentPassword', 'newPassword']),
      requestExample: { currentPassword: signIn.password, newPassword: 'Dhaka2026b' },
      responses: { 200: success('Password changed successfully', ref('Tokens'), { token: ACCESS_TOKEN, refreshToken: REFRESH_TOKEN }) },
    }),
  },
  '/api/auth/logout': {
    post: operation({
      id: 'logout',
      tags,
      summary: 'Sign out (the client discards its tokens)',
      roles: ANY_USER,
      responses: { 200: success('Logout successful') },
    }),
  },
};

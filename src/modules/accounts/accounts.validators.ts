import { body } from 'express-validator';
import { emailChecks, emailRule, intRule, passwordRule, stringRule } from '../../lib/http/validate';

const given = (v: unknown) => v !== undefined && v !== null && v !== '';

export const loginRules = [
  // required unless login_id is given; checked whenever given, so a stray non-string never
  // reaches the service beside a login_id
  emailChecks(
    body('email')
      .custom((v, { req }) => given(v) || req.body?.login_id !== undefined)
      .withMessage('Email or login_id is required')
      .bail()
      .if((v: unknown) => given(v)),
  ),
  stringRule(body('login_id'), 'login_id', { max: 100 }).notEmpty().withMessage('login_id must not be empty'),
  passwordRule(body('password'), 'Password', { required: true, strength: false }),
];

export const registerRules = [
  stringRule(body('name'), 'Name', { required: true, min: 2, max: 100 }),
  emailRule(body('email'), { required: true }),
  passwordRule(body('password'), 'Password', { required: true, strength: true }),
  stringRule(body('service_no'), 'Service number', { required: true, max: 50 }),
  stringRule(body('unit'), 'Unit', { required: true, max: 150 }),
  stringRule(body('designation'), 'Designation', { required: true, max: 150 }),
  stringRule(body('rank'), 'Rank', { max: 100 }),
  stringRule(body('department'), 'Department', { max: 150 }),
  stringRule(body('branch'), 'Branch', { max: 100 }),
  stringRule(body('sub_branch'), 'Sub-branch', { max: 100 }),
  stringRule(body('role'), 'Role', { max: 50 }),
  stringRule(body('phone'), 'Phone', { max: 20 }),
  stringRule(body('mobile'), 'Mobile', { max: 20 }),
  stringRule(body('alternative_mobile'), 'Alternative mobile', { max: 20 }),
  intRule(body('organization_id'), 'organization_id'),
];

export const refreshRules = [
  stringRule(body('refreshToken'), 'Refresh token', { required: true, max: 4096 }),
];

const avatarRule = stringRule(body('avatar'), 'Avatar', { max: 500, nullable: true })
  .isURL({ require_protocol: true, protocols: ['http', 'https'] })
  .withMessage('Avatar must be a valid http or https URL');

export const updateProfileRules = [
  stringRule(body('name'), 'Name', { min: 2, max: 100 }),
  emailRule(body('email')),
  stringRule(body('service_no'), 'Service number', { min: 1, max: 20 }),
  stringRule(body('phone'), 'Phone', { max: 20 }),
  stringRule(body('mobile'), 'Mobile', { max: 20, nullable: true }),
  stringRule(body('alternative_mobile'), 'Alternative mobile', { max: 20, nullable: true }),
  intRule(body('rank_id'), 'rank_id', { nullable: true }),
  intRule(body('unit_id'), 'unit_id'),
  intRule(body('department_id'), 'department_id', { nullable: true }),
  intRule(body('designation_id'), 'designation_id'),
  avatarRule,
];

export const changePasswordRules = [
  passwordRule(body('currentPassword'), 'Current password', { required: true, strength: false }),
  passwordRule(body('newPassword'), 'New password', { required: true, strength: true }),
];

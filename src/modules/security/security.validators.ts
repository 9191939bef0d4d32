import { query } from 'express-validator';
import { timeRules } from '../../lib/http/time-rules';
import { idOrNullRule, intRule, oneOfRule, paginationRules, stringRule } from '../../lib/http/validate';
import { CHANGE_TYPES } from './security.records';

export const SECURITY_PAGE = { defaultLimit: 50, maxLimit: 500 };
export const RECENT_EVENTS = { defaultLimit: 20, maxLimit: 100 };

/**
 * `organization_id`: a positive integer, or `null` for the failed sign-ins of unknown
 * identifiers. Checked for everyone (a malformed value is a validation failure) and obeyed
 * only for callers who may read every organization (see scopeOf).
 */
const organizationRule = idOrNullRule(query('organization_id').optional(), 'organization_id');

export const failedLoginRules = [
  ...paginationRules(SECURITY_PAGE.maxLimit),
  ...timeRules,
  stringRule(query('login_id'), 'login_id', { max: 100 }),
  stringRule(query('ip_address'), 'ip_address', { max: 45 }),
  stringRule(query('reason'), 'reason', { max: 255 }),
  organizationRule,
];

export const passwordChangeRules = [
  ...paginationRules(SECURITY_PAGE.maxLimit),
  ...timeRules,
  intRule(query('user_id'), 'user_id'),
  oneOfRule(query('change_type'), 'change_type', CHANGE_TYPES),
  organizationRule,
];

export const recentEventsRules = [
  intRule(query('limit'), 'limit', { min: 1, max: RECENT_EVENTS.maxLimit }),
  organizationRule,
];

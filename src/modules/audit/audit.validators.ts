import { param, query } from 'express-validator';
import { timeRules } from '../../lib/http/time-rules';
import { idParamRule, intRule, oneOfRule, paginationRules, stringRule } from '../../lib/http/validate';

export const AUDIT_PAGE = { defaultLimit: 50, maxLimit: 500 };

/** What an entry can be about: the `target_type` of every action (docs/audit.md, What is recorded). */
export const TARGET_TYPES = [
  'contact', 'role', 'unit', 'department', 'designation', 'rank', 'organization', 'country', 'division', 'district', 'thana', 'webhook', 'api_token',
] as const;

const pageRules = [...paginationRules(AUDIT_PAGE.maxLimit), ...timeRules, stringRule(query('action'), 'action', { max: 64 })];

export const auditListRules = [
  ...pageRules,
  intRule(query('actor_id'), 'actor_id'),
  oneOfRule(query('target_type'), 'target_type', TARGET_TYPES),
  // a target is found by its type and id together (the index of the targets)
  intRule(query('target_id'), 'target_id')
    .bail()
    .custom((_v, { req }) => req.query?.target_type !== undefined)
    .withMessage('target_id needs a target_type'),
  // obeyed for callers who may read every organization only (scopeOf)
  intRule(query('organization_id'), 'organization_id'),
];

export const historyRules = [idParamRule(param('id'), 'id'), ...pageRules];

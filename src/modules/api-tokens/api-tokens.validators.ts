import { body, param, query } from 'express-validator';
import { idParamRule, intRule, paginationRules, stringRule } from '../../lib/http/validate';

/** The scopes a token can hold: `scim`, the SCIM 2.0 service provider at /scim/v2 (docs/scim.md). */
export const API_TOKEN_SCOPES = ['scim'] as const;

export const API_TOKEN_PAGE = { defaultLimit: 50, maxLimit: 100 };

export const createTokenRules = [
  stringRule(body('name'), 'name', { required: true, max: 100 }),
  body('scopes')
    .custom((v) => Array.isArray(v) && v.length > 0 && v.every((s) => (API_TOKEN_SCOPES as readonly unknown[]).includes(s)))
    .withMessage(`scopes must be a non-empty list of: ${API_TOKEN_SCOPES.join(', ')}`)
    .bail()
    .customSanitizer((v: string[]) => [...new Set(v)]),
  body('expires_at')
    .optional({ values: 'null' })
    .custom((v) => typeof v === 'string' && !Number.isNaN(Date.parse(v)) && Date.parse(v) > Date.now())
    .withMessage('expires_at must be a date-time in the future')
    .bail()
    .customSanitizer((v: string) => new Date(v)),
  intRule(body('organization_id'), 'organization_id'),
  body('scim_defaults').optional().isObject().withMessage('scim_defaults must be an object'),
  intRule(body('scim_defaults.unit_id'), 'scim_defaults.unit_id'),
  intRule(body('scim_defaults.department_id'), 'scim_defaults.department_id'),
  intRule(body('scim_defaults.designation_id'), 'scim_defaults.designation_id'),
  intRule(body('scim_defaults.rank_id'), 'scim_defaults.rank_id'),
];

export const listTokenRules = [intRule(query('organization_id'), 'organization_id'), ...paginationRules(API_TOKEN_PAGE.maxLimit)];

export const tokenIdRules = [idParamRule(param('id'), 'id')];

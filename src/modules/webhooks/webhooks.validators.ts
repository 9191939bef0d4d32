import { body, param, query } from 'express-validator';
import { boolRule, idOrNullRule, idParamRule, oneOfRule, paginationRules, stringRule } from '../../lib/http/validate';
import { EVENT_PATTERNS } from './webhook.events';
import { urlProblem } from './webhook.targets';

export const WEBHOOK_PAGE = { defaultLimit: 50, maxLimit: 200 };
export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;
export const MAX_EVENTS = EVENT_PATTERNS.length;

/**
 * The form of a webhook URL (absolute, https, no credentials); whether its host is a public
 * address is checked by the service, which resolves it (checkTarget). `allowPrivate` allows http.
 */
function urlRule(allowPrivate: boolean, required: boolean) {
  return stringRule(body('url'), 'url', { required, max: 2048 })
    .bail()
    .custom((v: string) => {
      const problem = urlProblem(v, allowPrivate);
      if (problem) throw new Error(problem);
      return true;
    });
}

/** A non-empty list of distinct event patterns (EVENT_PATTERNS). */
function eventsRule(required: boolean) {
  const chain = required ? body('events').exists({ values: 'null' }).withMessage('events is required').bail() : body('events').optional({ values: 'undefined' });
  return chain
    .custom((v) => Array.isArray(v) && v.length >= 1 && v.length <= MAX_EVENTS)
    .withMessage(`events must be an array of 1 to ${MAX_EVENTS} event types`)
    .bail()
    .custom((v: unknown[]) => v.every((e) => typeof e === 'string' && EVENT_PATTERNS.includes(e)))
    .withMessage(`events must contain only: ${EVENT_PATTERNS.join(', ')}`)
    .bail()
    .custom((v: string[]) => new Set(v).size === v.length)
    .withMessage('events must not contain duplicates');
}

const description = stringRule(body('description'), 'description', { nullable: true, max: 255, emptyAsNull: true });

export const createRules = (allowPrivate: boolean) => [
  urlRule(allowPrivate, true),
  eventsRule(true),
  description,
  // a Super_admin's choice: one organization, or null for every one; an Admin may name only their own
  idOrNullRule(body('organization_id').optional(), 'organization_id'),
];

export const changeRules = (allowPrivate: boolean) => [
  idParamRule(param('id'), 'id'),
  urlRule(allowPrivate, false),
  eventsRule(false),
  description,
  boolRule(body('active'), 'active'),
];

export const listRules = paginationRules(WEBHOOK_PAGE.maxLimit);
export const idRules = [idParamRule(param('id'), 'id')];
export const deliveryRules = [
  idParamRule(param('id'), 'id'),
  ...paginationRules(WEBHOOK_PAGE.maxLimit),
  oneOfRule(query('status'), 'status', DELIVERY_STATUSES),
];

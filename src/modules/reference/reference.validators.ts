import { body, param, query, type ValidationChain } from 'express-validator';
import type { ResourceRules } from '../../lib/crud';
import { idParamRule, intRule, stringRule } from '../../lib/http/validate';

/**
 * The chains of each reference resource (the engine, lib/crud, puts the id, the page and the
 * search in front) and of roles.
 */

export const idRules: ValidationChain[] = [idParamRule(param('id'), 'id')];

const nameAndCode = (required: boolean, nameMax: number) => [
  stringRule(body('name'), 'Name', { required, min: 2, max: nameMax }),
  // an empty code means "no code" (so two records without one do not collide)
  stringRule(body('code'), 'Code', { max: 30, nullable: true, emptyAsNull: true }),
];

const unitFields = () => [
  intRule(body('parent_id'), 'parent_id', { nullable: true }),
  stringRule(body('description'), 'Description', { max: 500, nullable: true }),
];

export const unitRules: ResourceRules = {
  create: [...nameAndCode(true, 150), ...unitFields()],
  update: [...nameAndCode(false, 150), ...unitFields()],
  list: [
    // parent_id=null lists the top-level units
    query('parent_id')
      .optional()
      .custom((v) => v === 'null' || (typeof v === 'string' && /^[1-9]\d{0,15}$/.test(v)))
      .withMessage('parent_id must be a positive integer or null')
      .bail()
      .customSanitizer((v: string) => (v === 'null' ? null : Number(v))),
    stringRule(query('code'), 'code', { max: 30 }),
  ],
};

export const departmentRules: ResourceRules = {
  create: [...nameAndCode(true, 150), intRule(body('unit_id'), 'unit_id', { required: true })],
  update: [...nameAndCode(false, 150), intRule(body('unit_id'), 'unit_id')],
  list: [intRule(query('unit_id'), 'unit_id')],
};

/** Designations and organizations: a name and a code. */
export const namedRules = (): ResourceRules => ({
  create: nameAndCode(true, 150),
  update: nameAndCode(false, 150),
  list: [],
});

// seniority: 1 is the most senior
export const rankRules: ResourceRules = {
  create: [...nameAndCode(true, 100), intRule(body('level'), 'level', { required: true, min: 1, max: 1000 })],
  update: [...nameAndCode(false, 100), intRule(body('level'), 'level', { min: 1, max: 1000 })],
  list: [],
};

export const roleRules = (required: boolean): ValidationChain[] => [
  stringRule(body('name'), 'Name', { required, min: 2, max: 50 }),
  stringRule(body('description'), 'Description', { max: 255, nullable: true }),
  body('permissions')
    .optional()
    .custom((v) => Array.isArray(v) && v.length <= 100 && v.every((p) => typeof p === 'string' && p.length <= 100))
    .withMessage('permissions must be an array of permission names'),
];

import { body, param, query, type ValidationChain } from 'express-validator';
import { boolRule, idParamRule, intRule, paginationRules, stringRule } from '../../lib/http/validate';
import type { LevelDef } from './locations.levels';
import { LOCATIONS_PAGE } from './locations.service';

// trimmed, then stored as given: no case folding, no normalization (Bangla names round-trip)
const nameRule = (required: boolean) => stringRule(body('name'), 'Name', { required, min: 1, max: 100 });
// an empty code means "no code"
const codeRule = () => stringRule(body('code'), 'Code', { max: 20, nullable: true, emptyAsNull: true });

export const idRules: ValidationChain[] = [idParamRule(param('id'), 'id')];

/** `/divisions/country/:country_id`: the parent's id, on the parameter's own name. */
export const parentParamRules = (level: LevelDef): ValidationChain[] =>
  level.parent ? [idParamRule(param(level.parent.key), level.parent.key)] : [];

export const listRules = (level: LevelDef): ValidationChain[] => [
  ...paginationRules(LOCATIONS_PAGE.maxLimit),
  stringRule(query('search'), 'search', { max: 100 }),
  boolRule(query('include_inactive'), 'include_inactive'),
  ...(level.parent ? [intRule(query(level.parent.key), level.parent.key)] : []),
];

export const createRules = (level: LevelDef): ValidationChain[] => [
  ...(level.parent ? [intRule(body(level.parent.key), level.parent.key, { required: true })] : []),
  nameRule(true),
  codeRule(),
];

/** Update takes any of name, code, the parent id and is_active (true/1 reactivates, false/0 deactivates). */
export const updateRules = (level: LevelDef): ValidationChain[] => [
  ...idRules,
  ...(level.parent ? [intRule(body(level.parent.key), level.parent.key)] : []),
  nameRule(false),
  codeRule(),
  boolRule(body('is_active'), 'is_active'),
];

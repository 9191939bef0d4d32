import { param, query, type ValidationChain } from 'express-validator';
import { boolRule, idParamRule, paginationRules, stringRule } from '../http/validate';
import type { ResourceDef } from './resource';

/** The chains the engine's routes put in front of a resource's own (ResourceDef.rules). */

export const idRules: ValidationChain[] = [idParamRule(param('id'), 'id')];

/** `/<parent singular>/:<key>`: the parent's id, on the parameter's own name. */
export const parentParamRules = (key: string): ValidationChain[] => [idParamRule(param(key), key)];

/** The page, the search, for a soft-deleted resource whether inactive records count, then the resource's filters. */
export const listRules = (def: ResourceDef): ValidationChain[] => [
  ...paginationRules(def.page.maxLimit),
  stringRule(query('search'), 'search', { max: 100 }),
  ...(def.active ? [boolRule(query('include_inactive'), 'include_inactive')] : []),
  ...def.rules.list,
];

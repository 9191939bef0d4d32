import { query } from 'express-validator';
import { boolRule, intRule, oneOfRule } from '../../lib/http/validate';
import { filterRules } from '../contacts';
import type { FileFormat } from './export.service';

/** The chains of /api/contacts/import, /import/template and /export (docs/import-export.md). */

const FILE_FORMATS: readonly FileFormat[] = ['csv', 'xlsx'];

export const importRules = [
  boolRule(query('dry_run'), 'dry_run'),
  oneOfRule(query('mode'), 'mode', ['create', 'upsert']),
  oneOfRule(query('passwords'), 'passwords', ['allow', 'refuse']),
];

export const templateRules = [oneOfRule(query('format'), 'format', FILE_FORMATS)];

export const exportRules = [
  oneOfRule(query('format'), 'format', FILE_FORMATS),
  intRule(query('unit_id'), 'unit_id'),
  intRule(query('root_id'), 'root_id'),
  ...filterRules(query),
];

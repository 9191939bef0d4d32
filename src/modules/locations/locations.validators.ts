import { body, query, type ValidationChain } from 'express-validator';
import { boolRule, intRule, stringRule } from '../../lib/http/validate';

/** A level's own chains; the engine (lib/crud) puts the id, the page, the search and include_inactive in front. */

/** What the chains need of a level (locations.levels.ts LevelDef): its parent's key, if it has a parent. */
interface LevelDef {
  parent: { key: string } | null;
}

// trimmed, then stored as given: no case folding, no normalization (Bangla names round-trip)
const nameRule = (required: boolean) => stringRule(body('name'), 'Name', { required, min: 1, max: 100 });
// an empty code means "no code"
const codeRule = () => stringRule(body('code'), 'Code', { max: 20, nullable: true, emptyAsNull: true });

/** The parent filter: `?country_id=` lists the divisions of one country. */
export const listRules = (level: LevelDef): ValidationChain[] =>
  level.parent ? [intRule(query(level.parent.key), level.parent.key)] : [];

export const createRules = (level: LevelDef): ValidationChain[] => [
  ...(level.parent ? [intRule(body(level.parent.key), level.parent.key, { required: true })] : []),
  nameRule(true),
  codeRule(),
];

/** Update takes any of name, code, the parent id and is_active (true/1 reactivates, false/0 deactivates). */
export const updateRules = (level: LevelDef): ValidationChain[] => [
  ...(level.parent ? [intRule(body(level.parent.key), level.parent.key)] : []),
  nameRule(false),
  codeRule(),
  boolRule(body('is_active'), 'is_active'),
];

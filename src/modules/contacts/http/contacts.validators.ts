import { body, param, query, type ValidationChain } from 'express-validator';
import { aliases } from '../../../lib/http/aliases';
import {
  boolRule,
  emailRule,
  idListRule,
  idOrNullRule,
  idParamRule,
  intRule,
  oneOfRule,
  paginationRules,
  passwordRule,
  stringRule,
} from '../../../lib/http/validate';
import { FORMATS, TREE_SCOPES } from '../read/formats';
import { CHILDREN_PAGE, CONTACT_PAGE, SEARCH_LIMIT } from '../read/list-input';
import { ROLE_FILTERS } from '../domain/filters';
import { decodeCursor } from '../domain/change-cursor';
import { decodeListCursor } from '../domain/list-cursor';
import { CHANGES_PAGE } from '../read/change-feed.service';

export const STATUSES = ['online', 'offline', 'busy'] as const;

export const idRules = [idParamRule(param('id'), 'id')];

/** parent_id: a positive integer, or null (a root). `required`: the key must be present. */
function parentRule(location: typeof body | typeof query, required: boolean): ValidationChain {
  const chain = required
    ? location('parent_id').custom((v) => v !== undefined).withMessage('parent_id is required (null makes the contact a root)').bail()
    : location('parent_id').optional();
  return idOrNullRule(chain, 'parent_id');
}

/** The text fields of a contact: their labels and lengths, for the API's rules and an import's rows. */
export const CONTACT_TEXT = {
  name: { label: 'Name', min: 2, max: 255, required: true },
  service_no: { label: 'Service number', min: 1, max: 50, required: true },
  phone: { label: 'Phone', min: 1, max: 20, required: true },
  mobile: { label: 'Mobile', min: 0, max: 20, required: false },
  alternative_mobile: { label: 'Alternative mobile', min: 0, max: 20, required: false },
} as const;

function contactBodyRules(creating: boolean): ValidationChain[] {
  const text = (field: keyof typeof CONTACT_TEXT) => {
    const { label, required, ...range } = CONTACT_TEXT[field];
    return stringRule(body(field), label, { ...range, ...(required ? { required: creating } : { nullable: true }) });
  };
  return [
    text('name'),
    text('service_no'),
    intRule(body('unit_id'), 'unit_id', { required: creating }),
    intRule(body('designation_id'), 'designation_id', { required: creating }),
    text('phone'),
    emailRule(body('email'), { required: creating }),
    intRule(body('rank_id'), 'rank_id', { nullable: true }),
    intRule(body('department_id'), 'department_id', { nullable: true }),
    text('mobile'),
    text('alternative_mobile'),
    parentRule(body, false),
    intRule(body('role_id'), 'role_id'),
    oneOfRule(body('status'), 'status', STATUSES),
    stringRule(body('avatar'), 'Avatar', { max: 500, nullable: true })
      .isURL({ require_protocol: true, protocols: ['http', 'https'] })
      .withMessage('Avatar must be a valid http or https URL'),
  ];
}

/** What a create's or a move's `data.tree` holds (docs/api.md, Contacts). */
const treeScopeRule = () => oneOfRule(query('tree_scope'), 'tree_scope', TREE_SCOPES);

export const createRules = [
  ...contactBodyRules(true),
  passwordRule(body('password'), 'Password', { strength: true }),
  treeScopeRule(),
];
export const updateRules = [...idRules, ...contactBodyRules(false)];

/** The filters that select a set of contacts (ContactFilters): a listing's, a unit tree's, an export's. */
export const filterRules = (location: typeof query) => [
  stringRule(location('search'), 'search', { max: 100 }),
  intRule(location('department_id'), 'department_id'),
  boolRule(location('include_inactive'), 'include_inactive'),
  oneOfRule(location('role_filter'), 'role_filter', ROLE_FILTERS),
];

const setRules = (location: typeof query) => [...filterRules(location), oneOfRule(location('format'), 'format', FORMATS)];

/**
 * `cursor` of the contacts' lists (read/list-paging.ts): exactly as the list gave it, and not
 * beside `page` (both name a page: which one wins would be a guess). Whether it belongs to this
 * list and these filters, the service checks.
 */
const listCursorRule = () =>
  query('cursor')
    .optional({ values: 'undefined' })
    .custom((v) => typeof v === 'string' && decodeListCursor(v) !== null)
    .withMessage('cursor must be a cursor this list gave: pagination.next_cursor or the Link header\'s rel="next"')
    .bail()
    .custom((_v, { req }) => (req.query as Record<string, unknown> | undefined)?.page === undefined)
    .withMessage('page and cursor both name a page: give one of them (a page read after a cursor has no number)')
    .bail()
    .customSanitizer((v: string) => decodeListCursor(v));

export const listRules = [
  ...paginationRules(CONTACT_PAGE.maxLimit),
  listCursorRule(),
  ...setRules(query),
  parentRule(query, false),
  intRule(query('unit_id'), 'unit_id'),
  boolRule(query('tree'), 'tree'),
];

export const unitTreeRules = [idParamRule(param('unitId'), 'unitId'), ...setRules(query)];

export const childrenRules = [...idRules, ...paginationRules(CHILDREN_PAGE.maxLimit), listCursorRule(), boolRule(query('include_inactive'), 'include_inactive')];

/**
 * `search` is the snake_case name the list uses too; `q`, the specification's, stays for a
 * release (docs/api.md, Paging). The list does not take `q`: it would spread the name that goes.
 */
export const searchRules = [
  aliases('query', { q: 'search' }),
  stringRule(query('q'), 'q', { required: true, min: 2, max: 100, requiredMessage: 'Search query is required' }),
  intRule(query('unit_id'), 'unit_id'),
  intRule(query('department_id'), 'department_id'),
  ...paginationRules(SEARCH_LIMIT.maxLimit),
];

export const moveRules = [...idRules, parentRule(body, true), treeScopeRule()];

/** `contact_ids` beside the specification's `contactIds` (kept for a release, docs/api.md, Paging). */
const contactIdsAlias = aliases('body', { contactIds: 'contact_ids' });
export const bulkDeleteRules = [contactIdsAlias, idListRule(body('contactIds'), 'contactIds')];
export const bulkMoveRules = [contactIdsAlias, idListRule(body('contactIds'), 'contactIds'), parentRule(body, true)];

export const resetPasswordRules = [...idRules, passwordRule(body('newPassword'), 'New password', { required: true, strength: true })];

/** The change feed: `cursor` exactly as the service gave it (it leaves as its position), `limit`. */
export const changesRules = [
  query('cursor')
    .optional({ values: 'undefined' })
    .custom((v) => typeof v === 'string' && decodeCursor(v) !== null)
    .withMessage("cursor must be a cursor the service gave: a change's cursor, data.next_cursor or the X-Changes-Cursor header")
    .bail()
    .customSanitizer((v: string) => decodeCursor(v)),
  intRule(query('limit'), 'limit', { min: 1, max: CHANGES_PAGE.maxLimit }),
];

import { STATUSES } from '../../modules/contacts';
import { arrayOf, int, nullable, obj, ref, str, timestamp, type Schema } from '../builders';

/** The records of the contacts API (docs/api.md, Contacts). */
const contactFields: Record<string, Schema> = {
  id: int(),
  name: str(),
  rank_id: nullable(int()),
  rank_name: nullable(str()),
  service_no: str(),
  unit_id: int(),
  unit_name: str(),
  unit_code: nullable(str()),
  department_id: nullable(int()),
  department_name: nullable(str()),
  designation_id: int(),
  designation_name: str(),
  phone: nullable(str()),
  mobile: nullable(str()),
  alternative_mobile: nullable(str()),
  email: str({ format: 'email' }),
  parent_id: nullable(int()),
  parent_name: nullable(str()),
  is_active: { type: 'boolean' },
  role_id: int(),
  role_name: str(),
  avatar: nullable(str()),
  status: ref('ContactStatus'),
  last_seen: nullable(timestamp()),
  created_at: timestamp(),
  updated_at: timestamp(),
};
const level = int({ minimum: 0, description: "the contact's depth in the directory (0 for a root), whatever the filters" });

const counters = ['total_contacts', 'root_contacts', 'child_contacts', 'super_admins', 'admins', 'regular_users'];
const countersOf = (names: string[]) => obj(Object.fromEntries(names.map((n) => [n, int({ minimum: 0 })])));

export const contactSchemas = {
  ContactStatus: str({ enum: [...STATUSES] }),
  Contact: obj(contactFields),
  ContactFlat: obj({ ...contactFields, level }),
  ContactHierarchical: obj({
    ...contactFields,
    level,
    path: str({ description: 'names from the root to the contact, joined by " > "' }),
    ancestors: arrayOf(int(), { description: 'ancestor ids, root first' }),
  }),
  /** a contact with its level: open, for ContactTreeNode to close */
  ContactNodeFields: { type: 'object', properties: { ...contactFields, level }, required: [...Object.keys(contactFields), 'level'] },
  /**
   * A node of the nested format: exactly the fields and `children`. Written as a $ref and
   * `unevaluatedProperties` rather than one closed record because depth is unlimited: a validator
   * then checks the fields in a call of their own (they hold a $ref, so ajv does not inline them)
   * and recurses through a small function, so a 1,000-level chain fits the stack.
   */
  ContactTreeNode: {
    $ref: '#/components/schemas/ContactNodeFields',
    properties: { children: arrayOf(ref('ContactTreeNode')) },
    required: ['children'],
    unevaluatedProperties: false,
  },
  ContactList: {
    description: 'in the asked format: nested (tree), depth-first with level (flat), or with path and ancestors (hierarchical)',
    anyOf: [arrayOf(ref('ContactTreeNode')), arrayOf(ref('ContactFlat')), arrayOf(ref('ContactHierarchical'))],
  },
  UnitTreeNode: obj({ id: int(), name: str(), parent_id: nullable(int()), children: arrayOf(ref('UnitTreeNode')) }),
  ContactStatistics: countersOf(counters),
  DirectoryStatistics: countersOf([...counters, 'total_units', 'total_departments']),
  HierarchyUnit: obj({
    id: int(),
    name: str(),
    code: nullable(str()),
    parent_id: nullable(int()),
    total_users: int({ minimum: 0, description: 'active contacts of this unit (not of its sub-units)' }),
    departments: arrayOf(obj({ id: int(), name: str(), unit_id: int(), total_users: int({ minimum: 0 }) })),
    children: arrayOf(ref('HierarchyUnit')),
  }),
};

import { FORMATS, ROLE_FILTERS, STATUSES, TREE_SCOPES } from '../../modules/contacts';
import { arrayOf, body, E404, int, nullable, obj, pathId, query, queryBool, ref, str, type Param } from '../builders';

/** Parts that the contacts paths share (contacts.ts, contact-item.ts). */
export const tags = ['Contacts'];
/** every contacts route checks it (a custom role may lack it: 403); writes check theirs too */
export const READ = 'contacts.read';

export const setParams: Param[] = [
  query('search', str({ maxLength: 100 }), 'case-insensitive substring of name, e-mail, service number or phone'),
  query('department_id', int({ minimum: 1 })),
  query('format', str({ enum: [...FORMATS], default: 'tree' })),
  queryBool('include_inactive', 'include deactivated contacts'),
  query('role_filter', str({ enum: [...ROLE_FILTERS], default: 'all' })),
];

export const contactBody = (creating: boolean) =>
  body(
    {
      name: str({ minLength: 2, maxLength: 255 }),
      service_no: str({ minLength: 1, maxLength: 50 }),
      unit_id: int({ minimum: 1 }),
      designation_id: int({ minimum: 1 }),
      phone: str({ minLength: 1, maxLength: 20 }),
      email: str({ format: 'email', maxLength: 255 }),
      rank_id: nullable(int({ minimum: 1 })),
      department_id: nullable(int({ minimum: 1 })),
      mobile: nullable(str({ maxLength: 20 })),
      alternative_mobile: nullable(str({ maxLength: 20 })),
      parent_id: nullable(int({ minimum: 1 })),
      role_id: int({ minimum: 1, default: 3 }),
      status: str({ enum: [...STATUSES], default: 'offline' }),
      avatar: nullable(str({ maxLength: 500, format: 'uri' })),
      ...(creating ? { password: str({ minLength: 6, description: 'optional initial password (the password rule; at most 72 bytes)' }) } : {}),
    },
    creating ? ['name', 'service_no', 'unit_id', 'designation_id', 'phone', 'email'] : [],
  );

export const contactIds = arrayOf(int({ minimum: 1 }), { minItems: 1, maxItems: 1000, uniqueItems: true });
export const parentId = nullable(int({ minimum: 1 }));
export const contactAndTree = obj({
  contact: ref('Contact'),
  tree: arrayOf(ref('UnitTreeNode'), { description: "as `tree_scope` asks: the contact's branch (one top node), or its unit's whole tree" }),
});
/** What a create's or a move's `data.tree` holds (docs/api.md, Contacts). */
export const treeScopeParam = query(
  'tree_scope',
  str({ enum: [...TREE_SCOPES], default: 'contact' }),
  "`contact`: the contact's branch, its ancestors from the top down (each with only the next as child), then the contact with its active subtree: the answer's size and cost follow the contact's depth and subtree. `unit`: the unit's whole tree of active contacts, some 70 bytes a contact (144 KB for 2,000): for a client that redraws the whole unit, which GET /api/contacts/unit/{unitId} also gives, conditionally",
);
export const notFound = E404('Contact not found');
export const idParam = pathId();

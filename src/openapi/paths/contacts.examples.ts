import { CONTACT_PAGE } from '../../modules/contacts';
import { CREATED_AT, pagination, times, UPDATED_AT } from '../examples';

/**
 * The example directory (src/openapi/examples.ts): Kamal Hossain, a root, heads the Dhaka
 * Regional Office; Ayesha Rahman reports to him. Every contacts example is made of these two.
 */

const unit = { unit_id: 3, unit_name: 'Dhaka Regional Office', unit_code: 'DHK-RO' };

export const headContact = {
  id: 17,
  name: 'Kamal Hossain',
  rank_id: 5,
  rank_name: 'Colonel',
  service_no: 'BA-4021',
  ...unit,
  department_id: null,
  department_name: null,
  designation_id: 5,
  designation_name: 'Commanding Officer',
  phone: '02-9660017',
  mobile: '01711000017',
  alternative_mobile: null,
  email: 'kamal.hossain@example.org',
  parent_id: null,
  parent_name: null,
  is_active: true,
  role_id: 2,
  role_name: 'Admin',
  avatar: null,
  status: 'busy',
  last_seen: CREATED_AT,
  ...times,
};

/** The example contact: the one created, read, updated and moved. */
export const contactExample = {
  ...headContact,
  id: 42,
  name: 'Ayesha Rahman',
  rank_id: 7,
  rank_name: 'Major',
  service_no: 'BA-10457',
  department_id: 9,
  department_name: 'Field Operations',
  designation_id: 6,
  designation_name: 'Staff Officer',
  phone: '02-9660042',
  mobile: '01711000042',
  alternative_mobile: '01811000042',
  email: 'ayesha.rahman@example.org',
  parent_id: 17,
  parent_name: 'Kamal Hossain',
  role_id: 3,
  role_name: 'User',
  status: 'online',
  last_seen: UPDATED_AT,
};

/** The same two contacts in each listing format. */
export const contactTree = [{ ...headContact, level: 0, children: [{ ...contactExample, level: 1, children: [] }] }];
export const contactsFlat = [
  { ...headContact, level: 0 },
  { ...contactExample, level: 1 },
];
export const contactsHierarchical = [
  { ...headContact, level: 0, path: 'Kamal Hossain', ancestors: [] },
  { ...contactExample, level: 1, path: 'Kamal Hossain > Ayesha Rahman', ancestors: [17] },
];

/** The compact tree a write answers with: the contact's branch (here its parent, a root, and it). */
export const branchTreeExample = [
  { id: 17, name: 'Kamal Hossain', parent_id: null, children: [{ id: 42, name: 'Ayesha Rahman', parent_id: 17, children: [] }] },
];
export const contactAndTreeExample = { contact: contactExample, tree: branchTreeExample };

export const contactStatistics = { total_contacts: 2, root_contacts: 1, child_contacts: 1, super_admins: 0, admins: 1, regular_users: 1 };

export const listExample = {
  contacts: contactTree,
  statistics: contactStatistics,
  pagination: { ...pagination(2, CONTACT_PAGE.defaultLimit), format: 'tree' },
  filters: {
    search: '',
    parent_id: null,
    unit_id: null,
    department_id: null,
    tree: true,
    include_inactive: false,
    role_filter: 'all',
  },
};

/** POST /api/contacts: the fields of the example contact that a client sends. */
export const createContactExample = {
  name: contactExample.name,
  service_no: contactExample.service_no,
  unit_id: contactExample.unit_id,
  designation_id: contactExample.designation_id,
  phone: contactExample.phone,
  email: contactExample.email,
  rank_id: contactExample.rank_id,
  department_id: contactExample.department_id,
  mobile: contactExample.mobile,
  parent_id: contactExample.parent_id,
  role_id: contactExample.role_id,
  status: 'offline',
  password: 'Dhaka2026a',
};

const unitNode = (id: number, name: string, code: string, parentId: number | null, users: number, department: [number, string], children: unknown[]) => ({
  id,
  name,
  code,
  parent_id: parentId,
  total_users: users,
  departments: [{ id: department[0], name: department[1], unit_id: id, total_users: users }],
  children,
});

export const hierarchyExample = {
  units: [
    unitNode(1, 'Headquarters', 'HQ', null, 0, [1, 'Command Secretariat'], [
      unitNode(2, 'Operations Directorate', 'OPS', 1, 0, [4, 'Control Room'], [unitNode(3, 'Dhaka Regional Office', 'DHK-RO', 2, 2, [9, 'Field Operations'], [])]),
    ]),
  ],
};

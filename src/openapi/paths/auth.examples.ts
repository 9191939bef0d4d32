import { NOW } from '../examples';
import { contactExample as ayesha } from './contacts.examples';

/** The examples of /api/auth: the example contact (paths/contacts.examples.ts) signs in and edits her profile. */

export const signIn = { email: ayesha.email, password: 'Dhaka2026a' };

export const profileUser = {
  id: ayesha.id,
  name: ayesha.name,
  email: ayesha.email,
  role: ayesha.role_name,
  rank: ayesha.rank_name,
  service_no: ayesha.service_no,
  unit: ayesha.unit_name,
  branch: null,
  status: ayesha.status,
  last_seen: ayesha.last_seen,
};
/** PUT /api/auth/profile answers the caller's row with the names of what it refers to. */
const PROFILE_FIELDS = [
  'id', 'name', 'email', 'service_no', 'phone', 'mobile', 'alternative_mobile', 'rank_id', 'unit_id', 'department_id', 'designation_id',
  'rank_name', 'unit_name', 'unit_code', 'department_name', 'designation_name', 'avatar', 'role_id', 'role_name',
] as const;
export const profileDetails = {
  ...Object.fromEntries(PROFILE_FIELDS.map((field) => [field, ayesha[field]])),
  permissions: ['contacts.read'],
};

/** Kamal Hossain registers a new officer of his unit. */
export const registerExample = {
  name: 'Rafiq Ahmed',
  email: 'rafiq.ahmed@example.org',
  password: 'Welcome2026c',
  service_no: 'BA-10512',
  unit: ayesha.unit_code,
  designation: 'Staff Officer',
  rank: 'Captain',
  department: 'Field Operations',
  mobile: '01711000512',
};
export const registered = {
  id: 51,
  name: registerExample.name,
  email: registerExample.email,
  role: 'User',
  rank: registerExample.rank,
  service_no: registerExample.service_no,
  unit: ayesha.unit_name,
  branch: null,
  is_active: 1,
  created_at: NOW,
};

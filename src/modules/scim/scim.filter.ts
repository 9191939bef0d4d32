import { parse, type Filter } from 'scim2-parse-filter';
import type { AccountCondition, AccountFilterField } from '../contacts';
import { booleanOf } from './scim.mapping';
import { ScimError } from './scim.errors';
import { ENTERPRISE_SCHEMA, USER_SCHEMA } from './scim.schemas';

/**
 * A SCIM filter (RFC 7644 3.4.2.2), parsed by scim2-parse-filter, as a condition on the
 * organization's accounts (contacts' AccountCondition): each attribute path maps to a field the
 * directory keeps. givenName and familyName are the name's first and last words.
 */

const invalid = (detail: string) => new ScimError(400, 'invalidFilter', detail);

const FIELDS: Record<string, AccountFilterField> = {
  id: 'id', username: 'email', externalid: 'external_id', 'emails.value': 'email', emails: 'email',
  displayname: 'name', 'name.formatted': 'name', 'name.givenname': 'name', 'name.familyname': 'name',
  active: 'is_active', 'meta.lastmodified': 'updated_at', 'meta.created': 'created_at', employeenumber: 'service_no',
};
const PHONES: AccountFilterField[] = ['phone', 'mobile', 'alternative_mobile'];

/** The attribute path without its schema URN, in lower case. */
function pathOf(attrPath: string): string {
  const lower = attrPath.toLowerCase();
  for (const urn of [ENTERPRISE_SCHEMA, USER_SCHEMA]) if (lower.startsWith(`${urn.toLowerCase()}:`)) return lower.slice(urn.length + 1);
  return lower;
}

function valueOf(field: AccountFilterField, v: unknown): string | number | boolean | Date | null {
  if (v === null) return null;
  if (field === 'is_active') return booleanOf(v);
  if (field === 'updated_at' || field === 'created_at') {
    if (typeof v !== 'string' || Number.isNaN(Date.parse(v))) throw invalid('A date must be an ISO 8601 date-time');
    return new Date(v);
  }
  if (field === 'id') return /^\d{1,15}$/.test(String(v)) ? Number(v) : -1;
  if (typeof v !== 'string' && typeof v !== 'number') throw invalid('The value must be a string');
  return String(v);
}

function translate(f: Filter, prefix = ''): AccountCondition {
  switch (f.op) {
    case 'and':
      return { all: f.filters.map((x) => translate(x, prefix)) };
    case 'or':
      return { any: f.filters.map((x) => translate(x, prefix)) };
    case 'not':
      return { not: translate(f.filter, prefix) };
    case '[]': {
      const outer = pathOf(f.attrPath);
      if (outer !== 'emails' && outer !== 'phonenumbers') throw invalid(`${f.attrPath}[...] is not supported`);
      return translate(f.valFilter, `${outer}.`);
    }
    default: {
      const path = prefix + pathOf(f.attrPath);
      if (path === 'emails.type') return 'compValue' in f && String(f.compValue).toLowerCase() === 'work' ? { all: [] } : { none: true };
      if (path === 'emails.primary') return { all: [] };
      if (path === 'phonenumbers.type') return { all: [] };
      const fields = path.startsWith('phonenumbers') ? PHONES : FIELDS[path] ? [FIELDS[path]] : null;
      if (!fields) throw invalid(`Filtering by ${f.attrPath} is not supported`);
      const one = (field: AccountFilterField): AccountCondition => {
        if (f.op === 'pr') return { field, present: true };
        let op = f.op as 'eq' | 'ne' | 'co' | 'sw' | 'ew' | 'gt' | 'ge' | 'lt' | 'le';
        let value = valueOf(field, f.compValue);
        // the directory keeps one name: a given name is its start, a family name its end
        if (path === 'name.givenname' && op === 'eq') [op, value] = ['sw', `${String(value)} `];
        if (path === 'name.familyname' && op === 'eq') [op, value] = ['ew', ` ${String(value)}`];
        return { field, op, value };
      };
      return fields.length === 1 ? one(fields[0]) : { any: fields.map(one) };
    }
  }
}

export function conditionOf(filter: string | undefined): AccountCondition | null {
  if (filter === undefined || filter.trim() === '') return null;
  let parsed: Filter;
  try {
    parsed = parse(filter);
  } catch {
    throw invalid('The filter is not a valid SCIM filter');
  }
  return translate(parsed);
}

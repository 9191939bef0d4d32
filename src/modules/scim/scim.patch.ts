import { patchBodyValidation, scimPatch, ScimError as PatchError, type ScimPatch, type ScimPatchOperation, type ScimResource } from 'scim-patch';
import { booleanOf, type ScimUser } from './scim.mapping';
import { invalidValue, ScimError, type ScimType } from './scim.errors';
import { ENTERPRISE_SCHEMA } from './scim.schemas';

/**
 * A PATCH (RFC 7644 3.5.2) applied to the User's SCIM representation by scim-patch. What real
 * clients send is made standard first: Entra ID's capitalized ops ("Replace"), booleans as text
 * ("False"), a value object without a path keyed by attribute paths ("name.givenName", the
 * enterprise URN's attributes), and a manager given as its bare id.
 */

const READ_ONLY = new Set(['id', 'meta', 'schemas']);

function normalValue(path: string | undefined, value: unknown): unknown {
  const last = (path ?? '').split(/[.:]/).pop()?.toLowerCase();
  if (last === 'active') return booleanOf(value);
  if (last === 'manager' && (typeof value === 'string' || value === null)) return value ? { value } : null;
  return value;
}

/**
 * An add or replace without a path, as one operation per attribute it names: a key may be a
 * path ("name.givenName") or the enterprise URN with an object of its attributes, which
 * scim-patch would not read as paths (the URN's "2.0" holds a dot).
 */
function perAttribute(op: string, value: Record<string, unknown>): ScimPatchOperation[] {
  // an echoed id, meta or schemas is no change: clients send the whole resource back
  return Object.entries(value).filter(([key]) => !READ_ONLY.has(key.toLowerCase())).flatMap(([key, v]) => {
    if (key.toLowerCase() === ENTERPRISE_SCHEMA.toLowerCase() && v && typeof v === 'object' && !Array.isArray(v)) {
      return Object.entries(v).map(([k, w]) => ({ op, path: `${ENTERPRISE_SCHEMA}:${k}`, value: normalValue(k, w) }) as ScimPatchOperation);
    }
    return [{ op, path: key, value: normalValue(key, v) } as ScimPatchOperation];
  });
}

export function normalOperations(body: unknown): ScimPatchOperation[] {
  const b = (body ?? {}) as Record<string, unknown>;
  const ops = b.Operations ?? b.operations;
  if (!Array.isArray(ops) || ops.length === 0) throw new ScimError(400, 'invalidSyntax', 'Operations must be a non-empty list');
  return ops.flatMap((raw): ScimPatchOperation[] => {
    const o = (raw ?? {}) as Record<string, unknown>;
    const op = typeof o.op === 'string' ? o.op.toLowerCase() : '';
    if (!['add', 'replace', 'remove'].includes(op)) throw new ScimError(400, 'invalidSyntax', 'op must be add, replace or remove');
    const path = typeof o.path === 'string' && o.path.trim() !== '' ? o.path.trim() : undefined;
    if (op === 'remove' && !path) throw new ScimError(400, 'noTarget', 'A remove needs a path');
    if (!path) {
      if (!o.value || typeof o.value !== 'object' || Array.isArray(o.value)) throw new ScimError(400, 'invalidValue', 'An operation without a path needs an object value');
      return perAttribute(op, o.value as Record<string, unknown>);
    }
    if (READ_ONLY.has(path.toLowerCase())) throw new ScimError(400, 'mutability', `${path} cannot be changed`);
    return [{ op, path, ...(o.value !== undefined ? { value: normalValue(path, o.value) } : {}) } as ScimPatchOperation];
  });
}

const SCIM_TYPES: Record<string, ScimType> = { noTarget: 'noTarget', invalidPath: 'invalidPath', invalidValue: 'invalidValue', invalidSyntax: 'invalidSyntax' };

/** The User with the operations applied; the library's refusals as SCIM errors. */
export function applyPatch(user: ScimUser, body: unknown): ScimUser {
  const operations = normalOperations(body);
  try {
    patchBodyValidation({ schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'], Operations: operations } as ScimPatch);
    return scimPatch(structuredClone(user) as unknown as ScimResource, operations, { mutateDocument: true, treatMissingAsAdd: true }) as unknown as ScimUser;
  } catch (err) {
    if (err instanceof ScimError) throw err;
    if (err instanceof PatchError) throw new ScimError(400, SCIM_TYPES[err.scimCode ?? ''] ?? 'invalidValue', err.message);
    if (err instanceof TypeError) throw invalidValue('The operation does not fit the User');
    throw err;
  }
}

const hasText = (v: unknown) => typeof v === 'string' && v.trim() !== '';

/**
 * What a PATCH may not take away (RFC 7644 3.5.2: an operation that does not fit an attribute's
 * schema is refused): userName (required by RFC 7643), the name (a contact has one: displayName,
 * name.formatted or its parts) and emails (read back from userName, so a removal would not hold).
 * A removal is 400 `mutability`: RFC 7644 3.12 gives it to a change "not compatible with the
 * target attribute's mutability or current state", where `invalidValue` (kept for a value that
 * is given but empty or wrong: fromScim) says a value was sent that does not fit.
 */
export function assertRequiredKept(patched: ScimUser): void {
  const refuse = (what: string) => new ScimError(400, 'mutability', `${what} cannot be removed`);
  if (patched.userName === undefined || patched.userName === null) throw refuse('userName (the e-mail address)');
  if (!Array.isArray(patched.emails) || patched.emails.length === 0) throw refuse('emails (read from userName: change userName instead)');
  const name = patched.name && typeof patched.name === 'object' ? (patched.name as Record<string, unknown>) : {};
  if (![patched.displayName, name.formatted, name.givenName, name.familyName].some(hasText)) throw refuse('name (a contact has a name)');
}

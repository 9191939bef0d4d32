import type { NextFunction, Request, Response } from 'express';
import { matchedData, query, validationResult, type ValidationChain } from 'express-validator';
import isEmail from 'validator/lib/isEmail';
import { ValidationError } from '../errors';
import { sentAs } from './aliases';

/**
 * Turns the results of the express-validator chains in front of it into one ValidationError
 * that lists every failing field (its first message), and hands the handler only the
 * validated, sanitized values as `req.input`.
 */
export function validate(req: Request, _res: Response, next: NextFunction): void {
  const failures = validationResult(req).array({ onlyFirstError: true });
  if (failures.length > 0) {
    throw new ValidationError(
      failures.map((e) => sentAs(req, e.type === 'field' ? e.path : e.type, String(e.msg))),
    );
  }
  req.input = matchedData(req) as Record<string, unknown>;
  next();
}

/** The validated input of a request, typed by the handler that reads it. */
export function inputOf<T>(req: Request): T {
  return (req.input ?? {}) as T;
}

// ---- rule builders: every chain checks the JSON type first, so an object or array where a
// scalar belongs is a validation failure, never a value converted to "[object Object]".

interface Presence {
  required?: boolean;
  /** null is accepted (and kept) as "no value" */
  nullable?: boolean;
  requiredMessage?: string;
}

function presence(chain: ValidationChain, label: string, p: Presence): ValidationChain {
  if (p.required) {
    return chain
      .custom((v) => v !== undefined && v !== null && v !== '')
      .withMessage(p.requiredMessage ?? `${label} is required`)
      .bail();
  }
  // a null given for a nullable field is kept (it clears the field) and skips the checks
  const optional = chain.optional({ values: 'undefined' });
  return p.nullable ? optional.if((v: unknown) => v !== null) : optional;
}

/** Length in code points, as MySQL counts a VARCHAR (validator's isLength counts differently). */
export function lengthBetween(min: number, max: number) {
  return (v: string) => {
    const n = Array.from(v).length;
    return n >= min && n <= max;
  };
}

/**
 * What a text of the wrong length is told, as stringRule words it (a required field whose least
 * length is 1 is told only its greatest: being empty is "is required").
 */
export function lengthMessage(label: string, range: { min?: number; max: number; required?: boolean }): string {
  const { min = 0, max, required } = range;
  return min > 1 || (min === 1 && !required)
    ? `${label} must be between ${min} and ${max} characters`
    : `${label} must be at most ${max} characters`;
}

export function stringRule(
  chain: ValidationChain,
  label: string,
  options: Presence & { min?: number; max: number; /** '' (after trimming) is kept as null: "no value" */ emptyAsNull?: boolean },
): ValidationChain {
  const { min = 0, max } = options;
  const c = presence(chain, label, options)
    .custom((v) => typeof v === 'string')
    .withMessage(`${label} must be a string`)
    .bail()
    .trim();
  if (options.required && min <= 1) {
    return c
      .notEmpty()
      .withMessage(options.requiredMessage ?? `${label} is required`)
      .bail()
      .custom(lengthBetween(0, max))
      .withMessage(lengthMessage(label, options));
  }
  const checked = c.custom(lengthBetween(min, max)).withMessage(lengthMessage(label, options));
  return options.emptyAsNull ? checked.customSanitizer((v: unknown) => (v === '' ? null : v)) : checked;
}

/**
 * A positive whole-number id or null: JSON null, or the text "null" where only text comes (a
 * query string). The id may come as a number or as its digits; it leaves as a number.
 */
export function idOrNullRule(chain: ValidationChain, field: string): ValidationChain {
  const isNull = (v: unknown) => v === null || v === 'null';
  return chain
    .custom((v) => isNull(v) || isWholeNumber(v, 1, Number.MAX_SAFE_INTEGER))
    .withMessage(`${field} must be a positive integer or null`)
    .bail()
    .customSanitizer((v: unknown) => (isNull(v) ? null : Number(typeof v === 'string' ? v.trim() : v)));
}

/** What is wrong with an e-mail address (trimmed), or null: at most 255 characters, and an address. */
export function emailProblem(value: string): string | null {
  if (!lengthBetween(0, 255)(value)) return 'Email must be at most 255 characters';
  return isEmail(value) ? null : 'Please provide a valid email address';
}

/** What a given e-mail address must be: a string that, trimmed, passes emailProblem. */
export function emailChecks(chain: ValidationChain): ValidationChain {
  return chain
    .custom((v) => typeof v === 'string')
    .withMessage('Please provide a valid email address')
    .bail()
    .trim()
    .custom((v: string) => {
      const problem = emailProblem(v);
      if (problem) throw new Error(problem);
      return true;
    });
}

/** An e-mail field: present as `options` say, checked, stored in lower case. */
export function emailRule(chain: ValidationChain, options: Presence = {}): ValidationChain {
  return emailChecks(presence(chain, 'Email', { requiredMessage: 'Email is required', ...options }))
    .bail()
    .customSanitizer((v: string) => v.toLowerCase());
}

function isWholeNumber(v: unknown, min: number, max: number): boolean {
  let n: number;
  if (typeof v === 'number') n = v;
  else if (typeof v === 'string' && /^-?\d{1,16}$/.test(v.trim())) n = Number(v.trim());
  else return false;
  return Number.isSafeInteger(n) && n >= min && n <= max;
}

/** An integer given as a JSON number or a string of digits; converted to a number. */
export function intRule(
  chain: ValidationChain,
  label: string,
  options: Presence & { min?: number; max?: number; message?: string } = {},
): ValidationChain {
  const { min = 1, max = Number.MAX_SAFE_INTEGER } = options;
  const message =
    options.message ??
    (min === 1 && max === Number.MAX_SAFE_INTEGER
      ? `${label} must be a positive integer`
      : `${label} must be an integer between ${min} and ${max}`);
  return presence(chain, label, options)
    .custom((v) => isWholeNumber(v, min, max))
    .withMessage(message)
    .bail()
    .customSanitizer((v: unknown) => Number(typeof v === 'string' ? v.trim() : v));
}

/** A path id: a positive integer, reported on the parameter's own name. */
export function idParamRule(chain: ValidationChain, name: string): ValidationChain {
  return intRule(chain, name, { required: true, requiredMessage: `${name} must be a positive integer` });
}

const TRUE = new Set(['true', '1']);
const FALSE = new Set(['false', '0']);

/** A boolean: true/false in JSON, or true/false/1/0 as text (query strings). */
export function boolRule(chain: ValidationChain, label: string, options: Presence = {}): ValidationChain {
  return presence(chain, label, options)
    .custom((v) => typeof v === 'boolean' || v === 1 || v === 0 || (typeof v === 'string' && (TRUE.has(v) || FALSE.has(v))))
    .withMessage(`${label} must be true or false`)
    .bail()
    .customSanitizer((v: unknown) => v === true || v === 1 || (typeof v === 'string' && TRUE.has(v)));
}

export function oneOfRule(
  chain: ValidationChain,
  label: string,
  values: readonly string[],
  options: Presence = {},
): ValidationChain {
  return presence(chain, label, options)
    .custom((v) => typeof v === 'string' && values.includes(v))
    .withMessage(`${label} must be one of: ${values.join(', ')}`);
}

const PASSWORD_STRENGTH = /^(?=.*[a-z])(?=.*[A-Z])(?=.*\d)/;

/**
 * What is wrong with a password, or null. `strength` applies the password rule (new passwords
 * only); every password is at most 72 bytes in UTF-8, because bcrypt silently ignores the bytes
 * after that. The chains below and the import's rows share it.
 */
export function passwordProblem(value: string, label: string, strength: boolean): string | null {
  if (Buffer.byteLength(value, 'utf8') > 72) return 'Password must be at most 72 bytes';
  if (!strength) return null;
  if (Array.from(value).length < 6) return `${label} must be at least 6 characters`;
  if (!PASSWORD_STRENGTH.test(value)) return `${label} must contain at least one lowercase letter, one uppercase letter, and one number`;
  return null;
}

/** A password field (passwordProblem). */
export function passwordRule(
  chain: ValidationChain,
  label: string,
  options: Presence & { strength: boolean },
): ValidationChain {
  return presence(chain, label, options)
    .custom((v) => typeof v === 'string')
    .withMessage(`${label} must be a string`)
    .bail()
    .custom((v: string) => {
      const problem = passwordProblem(v, label, options.strength);
      if (problem) throw new Error(problem);
      return true;
    });
}

/** A non-empty array of distinct positive integer ids, at most `max` of them. */
export function idListRule(chain: ValidationChain, label: string, max = 1000): ValidationChain {
  return chain
    .custom((v) => v !== undefined && v !== null)
    .withMessage(`${label} is required`)
    .bail()
    .custom((v) => Array.isArray(v) && v.length >= 1 && v.length <= max)
    .withMessage(`${label} must be an array of 1 to ${max} ids`)
    .bail()
    .custom((v: unknown[]) => v.every((id) => isWholeNumber(id, 1, Number.MAX_SAFE_INTEGER)))
    .withMessage(`${label} must contain only positive integers`)
    .bail()
    .customSanitizer((v: unknown[]) => v.map((id) => Number(id)))
    .custom((v: number[]) => new Set(v).size === v.length)
    .withMessage(`${label} must not contain duplicates`);
}

/** Optional `page` and `limit` (at most `maxLimit`) in the query; see pageOf for the defaults. */
export function paginationRules(maxLimit: number) {
  return [
    intRule(query('page'), 'page', { min: 1, max: 1_000_000 }),
    intRule(query('limit'), 'limit', { min: 1, max: maxLimit }),
  ];
}

export function pageOf(input: { page?: number; limit?: number }, defaultLimit: number) {
  const page = input.page ?? 1;
  const limit = input.limit ?? defaultLimit;
  return { page, limit, offset: (page - 1) * limit };
}

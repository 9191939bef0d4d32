import type { NextFunction, Request, Response } from 'express';
import { ValidationError, type FieldError } from '../errors';

/**
 * Refuses a JSON body holding text that is not well-formed Unicode (a lone UTF-16 surrogate,
 * which JSON can spell as `"\ud800"`): 400 `Validation failed` on each such field, before any
 * route sees it. Such text cannot be stored as given (SQLite and MySQL would store U+FFFD or
 * refuse it) and trips validators (isEmail throws on it). Query strings and paths cannot carry
 * it: they are decoded as UTF-8, which has no surrogates.
 */
export function wellFormedBody(req: Request, _res: Response, next: NextFunction): void {
  const errors: FieldError[] = [];
  collect(req.body, '', errors);
  if (errors.length > 0) throw new ValidationError(errors);
  next();
}

/** The fields (by path: `name`, `permissions[2]`, `a.b`) whose text is not well-formed, walking with an explicit stack. */
function collect(body: unknown, root: string, errors: FieldError[]): void {
  const stack: Array<[unknown, string]> = [[body, root]];
  while (stack.length > 0) {
    const [value, path] = stack.pop()!;
    if (typeof value === 'string') {
      if (!value.isWellFormed()) errors.push({ field: path || 'body', message: 'Text must be well-formed Unicode' });
    } else if (Array.isArray(value)) {
      value.forEach((item, i) => stack.push([item, `${path}[${i}]`]));
    } else if (value !== null && typeof value === 'object') {
      for (const [key, item] of Object.entries(value)) {
        const field = path ? `${path}.${key}` : key;
        if (!key.isWellFormed()) errors.push({ field: field.toWellFormed(), message: 'Field names must be well-formed Unicode' });
        else stack.push([item, field]);
      }
    }
  }
  errors.sort((a, b) => (a.field < b.field ? -1 : a.field > b.field ? 1 : 0));
}

import { isDeepStrictEqual } from 'node:util';
import type { NextFunction, Request, Response } from 'express';
import { ValidationError } from '../errors';

/**
 * A parameter that goes by two names for a release (docs/api.md, "Paging", Names): the
 * specification's (`q`, `contactIds`), which the rules check and the service reads, and its
 * snake_case twin (`search`, `contact_ids`). Put in front of the rules: a value sent under the
 * other name is copied to the rules' name, and the same value under both is one value. Two
 * different values are a 400 naming both, since guessing which one the client meant would
 * answer a question it did not ask.
 *
 * `names` maps the rules' name to the other one. A failure of a rule is told under the name
 * the client sent (validate reads `req.aliased`), so a client that uses only the new names
 * never meets the old ones.
 */
export function aliases(location: 'query' | 'body', names: Record<string, string>) {
  return (req: Request, _res: Response, next: NextFunction): void => {
    const source = req[location] as Record<string, unknown> | undefined;
    if (!source || typeof source !== 'object' || Array.isArray(source)) return next();
    const conflicts: Array<{ field: string; message: string }> = [];
    for (const [name, alias] of Object.entries(names)) {
      if (source[alias] === undefined) continue;
      if (source[name] === undefined) {
        source[name] = source[alias];
        req.aliased = { ...req.aliased, [name]: alias };
      } else if (!isDeepStrictEqual(source[name], source[alias])) {
        conflicts.push({ field: alias, message: `${alias} and ${name} are two names of one parameter: give one of them, or the same value in both` });
      }
    }
    if (conflicts.length > 0) throw new ValidationError(conflicts);
    next();
  };
}

/** The name the client sent for a field the rules checked under `field`, and the message in its words. */
export function sentAs(req: Request, field: string, message: string): { field: string; message: string } {
  const alias = req.aliased?.[field];
  if (!alias) return { field, message };
  return { field: alias, message: message.startsWith(`${field} `) ? `${alias}${message.slice(field.length)}` : message };
}

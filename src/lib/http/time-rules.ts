import { query, type Meta, type ValidationChain } from 'express-validator';

// YYYY-MM-DD, optionally followed by Thh:mm[:ss[.fraction]] and a zone (Z or ±hh[:]mm)
const ISO_8601 =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?([Zz]|[+-]\d{2}:?\d{2})?)?$/;

/**
 * The instant an ISO 8601 date or date-time stands for, or null when it is not one (a date
 * that does not exist, such as 2026-02-30, included). A date-time without a zone is UTC. A
 * bare date is the start of that day (UTC), or with `endOfDay` its last millisecond, so that
 * `to=2026-11-22` includes the whole day.
 */
export function parseInstant(value: unknown, endOfDay = false): Date | null {
  if (value instanceof Date) return value;
  if (typeof value !== 'string') return null;
  const m = ISO_8601.exec(value.trim());
  if (!m) return null;
  const [, y, mo, d, h, mi, s, fraction, zone] = m;
  const [year, month, day] = [Number(y), Number(mo), Number(d)];
  const [hour, minute, second] = [Number(h ?? 0), Number(mi ?? 0), Number(s ?? 0)];
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return null;
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  if (date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return null;
  let offsetMinutes = 0;
  if (zone && zone.toUpperCase() !== 'Z') {
    const [zh, zm] = [Number(zone.slice(1, 3)), Number(zone.slice(-2))];
    if (zh > 23 || zm > 59) return null;
    offsetMinutes = (zone[0] === '-' ? -1 : 1) * (zh * 60 + zm);
  }
  const millis = Number((fraction ?? '').padEnd(3, '0').slice(0, 3));
  date.setUTCHours(hour, minute, second, millis);
  if (h === undefined && endOfDay) date.setUTCHours(23, 59, 59, 999);
  return new Date(date.getTime() - offsetMinutes * 60_000);
}

const INSTANT_MESSAGE = 'must be an ISO 8601 date or date-time (such as 2026-11-22 or 2026-11-22T08:15:30Z)';

function instantRule(name: 'from' | 'to'): ValidationChain {
  return query(name)
    .optional()
    .custom((v) => parseInstant(v) !== null)
    .withMessage(`${name} ${INSTANT_MESSAGE}`)
    .bail()
    .customSanitizer((v: unknown) => parseInstant(v, name === 'to'));
}

/** `from` and `to`, as Date values (compared against the stored timestamps as dates, never text). */
export const timeRules = [
  instantRule('from'),
  instantRule('to')
    .custom((to: Date, { req }: Meta) => {
      const from = parseInstant(req.query?.from);
      return from === null || from.getTime() <= to.getTime();
    })
    .withMessage('to must not be earlier than from'),
];

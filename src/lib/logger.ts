import pino, { type Logger } from 'pino';
import { safeError } from './http/errors';

export type { Logger };

/** Paths pino replaces with "[Redacted]" wherever they appear in a log line. */
const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  '*.password',
  '*.newPassword',
  '*.currentPassword',
  '*.password_hash',
  '*.token',
  '*.refreshToken',
  '*.secret',
];

export function createLogger(options: { level: string }, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level: options.level,
      redact: { paths: REDACT_PATHS, censor: '[Redacted]' },
      // pino's own err serializer writes the stack trace (and a database error's SQL)
      serializers: { err: safeError },
      base: { service: 'directory-service' },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    destination,
  );
}

import pino, { type Logger } from 'pino';

export type { Logger };

/**
 * A serializer for logged errors: name, code and a message, never the stack trace. A database
 * error's message is the driver's own: createDb takes knex's copy of the statement off it.
 * The serializer of every `err` key: callers log `{ err }` as it is.
 */
export function safeError(err: unknown): Record<string, unknown> {
  if (typeof err !== 'object' || err === null || typeof (err as { message?: unknown }).message !== 'string') {
    return { message: String(err).slice(0, 500) };
  }
  const { code, errno, sqlMessage, message } = err as { code?: unknown; errno?: unknown; sqlMessage?: string; message: string };
  if (!(err instanceof Error)) {
    return { type: (err as { type?: unknown }).type, code, errno, message: message.slice(0, 500) };
  }
  return { type: err.name, code, errno, message: (sqlMessage ?? message).slice(0, 500) };
}

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

import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import { constants, createGzip, gzip } from 'node:zlib';
import type { Response } from 'express';

const gzipped = promisify(gzip);

/** The success envelope: {status: "success", message, data}; `data` is `{}` when there is nothing to return. */
export function sendSuccess(res: Response, status: number, message: string, data: unknown = {}): void {
  res.status(status).json({ status: 'success', message, data });
}

/** A kept answer's envelope, made once per kept `data`: as it is, and gzipped once a client accepts that. */
interface KeptEnvelope {
  message: string;
  plain: Buffer;
  gzip?: Promise<Buffer | null>;
}
const envelopes = new WeakMap<Buffer, KeptEnvelope>();

/**
 * sendSuccess for a `data` kept in memory as UTF-8 JSON and sent many times (the unit tree: 6.6
 * MB for 10,000 contacts). Bytes, not text: encoding that text with its Bengali names took 40 to
 * 80 ms a request. The envelope around it is made once per kept `data` (a WeakMap: it goes when
 * the data does), and gzipped once, on the thread pool, for the clients that accept gzip (every
 * browser does): a tenth of the bytes on every later request. A failed compression sends it plain.
 */
export async function sendKeptJson(res: Response, status: number, message: string, data: Buffer): Promise<void> {
  let envelope = envelopes.get(data);
  if (!envelope || envelope.message !== message) {
    const head = Buffer.from(`{"status":"success","message":${JSON.stringify(message)},"data":`);
    envelope = { message, plain: Buffer.concat([head, data, Buffer.from('}')]) };
    envelopes.set(data, envelope);
  }
  res.status(status).type('application/json').vary('Accept-Encoding');
  if (res.req.acceptsEncodings('gzip', 'identity') === 'gzip') {
    const plain = envelope.plain;
    envelope.gzip ??= gzipped(plain).catch(() => null);
    const body = await envelope.gzip;
    if (body) {
      res.setHeader('Content-Encoding', 'gzip');
      res.send(body);
      return;
    }
  }
  res.send(envelope.plain);
}

/**
 * An answer whose text is made as it is sent (a large unit's tree): chunked, gzipped on the way
 * when the client accepts gzip, written as fast as the client reads (backpressure: the source
 * waits while the socket's buffer is full). The status and headers leave with the first piece;
 * an error after that rejects, and the error handler cuts the connection (errors.ts). A client
 * that goes away ends the source (its `finally` runs) and is no error.
 */
export async function sendStreamedJson(res: Response, status: number, body: AsyncIterable<string>): Promise<void> {
  res.status(status).type('application/json').vary('Accept-Encoding');
  const gzipIt = res.req.acceptsEncodings('gzip', 'identity') === 'gzip';
  if (gzipIt) res.setHeader('Content-Encoding', 'gzip');
  const source = Readable.from(body, { objectMode: false });
  try {
    // each piece flushed as it comes (the source's pieces are large: a chunk of contacts), so the
    // head, and every chunk after it, reaches the client at once and not when zlib's buffer fills
    await (gzipIt ? pipeline(source, createGzip({ flush: constants.Z_SYNC_FLUSH }), res) : pipeline(source, res));
  } catch (err) {
    // the client closed the connection before the end: nothing went wrong here
    if ((err as { code?: string }).code !== 'ERR_STREAM_PREMATURE_CLOSE') throw err;
  }
}

/** How long a client is asked to wait before it tries again after a 503 (Retry-After, seconds). */
export const RETRY_AFTER_SECONDS = 5;

/** The body of a 503 for a request the service cannot serve now: the database cannot be reached, or the server is stopping. */
export const SERVICE_UNAVAILABLE = { status: 'error', message: 'Service unavailable' } as const;

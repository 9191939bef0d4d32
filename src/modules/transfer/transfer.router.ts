import { Router, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { Transform, type Readable } from 'node:stream';
import zlib from 'node:zlib';
import multer from 'multer';
import { AppError, ValidationError } from '../../lib/errors';
import { actorOf } from '../audit';
import { sendSuccess } from '../../lib/http/respond';
import { inputOf, validate } from '../../lib/http/validate';
import { requirePermission as can } from '../access';
import { filtersOf, type ListInput } from '../contacts';
import { CONTENT_TYPES, DirectoryExport, type FileFormat } from './export.service';
import type { DirectoryImport } from './import.service';
import type { ImportMode } from './import.plan';
import type { Sheet } from './sheet';
import { exportRules, importRules, templateRules } from './transfer.validators';
import { UploadStorageError } from './nameless-file';

export interface TransferServices {
  importer: DirectoryImport;
  exporter: DirectoryExport;
  maxBytes: number;
}

const CSV_TYPES = ['text/csv', 'application/csv', 'text/plain'];

const tooLarge = (maxBytes: number) => new AppError(413, `Import file too large: at most ${maxBytes} bytes (IMPORT_MAX_BYTES)`);

type ReadFile = (file: Readable) => Promise<Sheet>;

/** The file each import request has read, until its handler takes it. */
const received = new WeakMap<Request, Sheet>();

/**
 * multer's storage for the import's one file: the file is read (readSheet) as it arrives, a
 * CSV row by row, an .xlsx written to a temporary file (its zip is read from the end), so the
 * upload is never held in memory. multer's own limits (fileSize) still hold.
 */
class SheetStorage implements multer.StorageEngine {
  constructor(private readonly read: ReadFile) {}

  _handleFile(req: Request, file: Express.Multer.File, done: (error?: unknown, info?: Partial<Express.Multer.File>) => void): void {
    this.read(file.stream).then(
      (sheet) => {
        received.set(req, sheet);
        done(null, {});
      },
      (err: unknown) => {
        // what a refused file leaves unread is drained, or busboy would wait for it
        file.stream.resume();
        done(err);
      },
    );
  }

  _removeFile(req: Request, _file: Express.Multer.File, done: (error: Error | null) => void): void {
    received.delete(req);
    done(null);
  }
}

/** The inflaters of a CSV body's Content-Encoding (what express.raw accepted). */
const INFLATE = new Map<string, () => Transform>([
  ['gzip', () => zlib.createGunzip()],
  ['x-gzip', () => zlib.createGunzip()],
  ['deflate', () => zlib.createInflate()],
  ['br', () => zlib.createBrotliDecompress()],
]);

/**
 * A CSV body's bytes, inflated, at most `maxBytes` of them (413 past that). A Content-Length over
 * them is refused before anything is read only for a body sent as it is: a compressed body's
 * length says nothing of what it inflates to (raw-body, under express.raw, did the same).
 */
function csvBody(req: Request, maxBytes: number): Readable {
  const encoding = (req.headers['content-encoding'] ?? 'identity').toLowerCase();
  const inflate = encoding === 'identity' ? null : INFLATE.get(encoding);
  if (inflate === undefined) throw new AppError(415, `Unsupported content encoding "${encoding}"`);
  if (!inflate && Number(req.headers['content-length']) > maxBytes) throw tooLarge(maxBytes);
  let size = 0;
  const limited = new Transform({
    transform(chunk: Buffer, _encoding, next) {
      size += chunk.length;
      next(size > maxBytes ? tooLarge(maxBytes) : null, chunk);
    },
  });
  const unreadable = () => limited.destroy(ValidationError.field('file', 'The request body cannot be read'));
  req.once('error', unreadable).once('aborted', unreadable);
  if (!inflate) return req.pipe(limited);
  const inflater = inflate().once('error', () => limited.destroy(ValidationError.field('file', 'The request body cannot be inflated')));
  return req.pipe(inflater).pipe(limited);
}

/** Lets the rest of a refused request body go by, so that the client reads the answer instead of a reset connection. */
function drained(req: Request): Promise<void> {
  req.unpipe();
  if (!req.readable || req.destroyed || req.readableEnded) return Promise.resolve();
  return new Promise((resolve) => {
    req.once('end', resolve).once('close', resolve).once('error', resolve);
    req.resume();
  });
}

/**
 * The file of an import: one multipart part named `file`, or a CSV body (text/csv). Either is
 * read as it arrives (IMPORT_MAX_BYTES at most); the import checks its rows before it writes any.
 */
function receiveFile(maxBytes: number, read: ReadFile): RequestHandler {
  const upload = multer({
    storage: new SheetStorage(read),
    limits: { fileSize: maxBytes, files: 1, fields: 10, fieldSize: 10_000, parts: 12 },
  }).single('file');
  return (req: Request, res: Response, next: NextFunction) => {
    if (req.is('multipart/form-data')) {
      upload(req, res, (err: unknown) => {
        if (!err) return next();
        const code = (err as { code?: string }).code;
        if (code === 'LIMIT_FILE_SIZE') return next(tooLarge(maxBytes));
        if (err instanceof AppError || err instanceof UploadStorageError) return next(err);
        if (err instanceof multer.MulterError) return next(ValidationError.field('file', `The upload is not valid: ${err.message}`));
        next(ValidationError.field('file', 'The multipart body cannot be read'));
      });
    } else if (req.is(CSV_TYPES)) {
      new Promise<Readable>((resolve) => resolve(csvBody(req, maxBytes)))
        .then(read)
        .then((sheet) => {
          received.set(req, sheet);
          next();
        })
        .catch(async (err: unknown) => {
          await drained(req);
          next(err instanceof AppError || err instanceof UploadStorageError ? err : ValidationError.field('file', 'The request body cannot be read'));
        });
    } else {
      next(new AppError(415, 'Unsupported media type: send multipart/form-data with the file in field file, or a text/csv body'));
    }
  };
}

/** The request's file, read; the request lets go of it. */
function takeSheet(req: Request): Sheet {
  const sheet = received.get(req);
  if (!sheet) throw ValidationError.field('file', 'A file is required: a multipart part named file, or a text/csv body');
  received.delete(req);
  return sheet;
}

/** The dated name of a downloaded file. */
function attachment(res: Response, name: string, format: FileFormat): void {
  res.type(CONTENT_TYPES[format]);
  res.attachment(`${name}-${new Date().toISOString().slice(0, 10)}.${format}`);
}

/**
 * /api/contacts/import, /import/template and /export (docs/import-export.md). Mounted before the
 * contacts router, each route authenticates itself, so other /api/contacts requests pass through untouched.
 */
export function transferRouter(services: TransferServices, requireAuth: RequestHandler): Router {
  const { importer, exporter, maxBytes } = services;
  const router = Router();

  router.post('/import', requireAuth, can('contacts.read', 'contacts.import'), ...importRules, validate, receiveFile(maxBytes, (file) => importer.readFile(file)), async (req, res) => {
    const input = inputOf<{ dry_run?: boolean; mode?: ImportMode; passwords?: 'allow' | 'refuse' }>(req);
    const options = { dryRun: input.dry_run ?? false, mode: input.mode ?? 'create', passwords: input.passwords === 'allow' };
    const report = await importer.run(takeSheet(req), options, actorOf(req));
    sendSuccess(res, 200, options.dryRun ? 'Import checked: nothing was written' : 'Import completed', report);
  });

  router.get('/import/template', requireAuth, can('contacts.read', 'contacts.import'), ...templateRules, validate, async (req, res) => {
    const format = inputOf<{ format?: FileFormat }>(req).format ?? 'xlsx';
    const file = await importer.template(format);
    attachment(res, 'contacts-import-template', format);
    res.send(file);
  });

  router.get('/export', requireAuth, can('contacts.read'), ...exportRules, validate, async (req, res) => {
    const { format = 'csv', root_id: rootId, ...list } = inputOf<Omit<ListInput, 'format'> & { format?: FileFormat; root_id?: number }>(req);
    const batches = await exporter.open(filtersOf(list), rootId);
    attachment(res, 'contacts', format);
    await (format === 'csv' ? DirectoryExport.writeCsv(batches, res) : DirectoryExport.writeXlsx(batches, res));
  });

  return router;
}

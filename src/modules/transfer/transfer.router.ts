import express, { Router, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
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
import { exportRules, importRules, templateRules } from './transfer.validators';

export interface TransferServices {
  importer: DirectoryImport;
  exporter: DirectoryExport;
  maxBytes: number;
}

const CSV_TYPES = ['text/csv', 'application/csv', 'text/plain'];

const tooLarge = (maxBytes: number) => new AppError(413, `Import file too large: at most ${maxBytes} bytes (IMPORT_MAX_BYTES)`);

/**
 * The file of an import: one multipart part named `file`, or a raw CSV body. Either is kept
 * in memory (IMPORT_MAX_BYTES at most: the import reads every row before it writes any).
 */
function receiveFile(maxBytes: number): RequestHandler {
  const upload = multer({
    storage: multer.memoryStorage(),
    limits: { fileSize: maxBytes, files: 1, fields: 10, fieldSize: 10_000, parts: 12 },
  }).single('file');
  const raw = express.raw({ type: CSV_TYPES, limit: maxBytes });
  return (req: Request, res: Response, next: NextFunction) => {
    if (req.is('multipart/form-data')) {
      upload(req, res, (err: unknown) => {
        if (!err) return next();
        const code = (err as { code?: string }).code;
        if (code === 'LIMIT_FILE_SIZE') return next(tooLarge(maxBytes));
        if (err instanceof multer.MulterError) return next(ValidationError.field('file', `The upload is not valid: ${err.message}`));
        next(ValidationError.field('file', 'The multipart body cannot be read'));
      });
    } else if (req.is(CSV_TYPES)) {
      raw(req, res, (err: unknown) => next((err as { type?: string } | undefined)?.type === 'entity.too.large' ? tooLarge(maxBytes) : err));
    } else {
      next(new AppError(415, 'Unsupported media type: send multipart/form-data with the file in field file, or a text/csv body'));
    }
  };
}

/**
 * The uploaded file, which the request lets go of (up to IMPORT_MAX_BYTES): once read, the
 * import keeps only its rows. Not a variable of the route's handler: V8 keeps an async
 * function's variables for as long as it awaits, used again or not.
 */
function takeFile(req: Request): Buffer {
  const file = req.file?.buffer ?? (Buffer.isBuffer(req.body) ? req.body : undefined);
  if (!file) throw ValidationError.field('file', 'A file is required: a multipart part named file, or a text/csv body');
  req.file = undefined;
  if (Buffer.isBuffer(req.body)) req.body = undefined;
  return file;
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

  router.post('/import', requireAuth, can('contacts.read', 'contacts.import'), ...importRules, validate, receiveFile(maxBytes), async (req, res) => {
    const input = inputOf<{ dry_run?: boolean; mode?: ImportMode; passwords?: 'allow' | 'refuse' }>(req);
    const options = { dryRun: input.dry_run ?? false, mode: input.mode ?? 'create', passwords: input.passwords === 'allow' };
    const report = await importer.run(takeFile(req), options, actorOf(req));
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

/**
 * Transfer: the directory in and out of files (docs/import-export.md). Import of a CSV or .xlsx
 * file of contacts (whole trees, dry run, upsert), its template, and export in the same
 * columns. Uses access for permissions, reference for names, and contacts for every read and
 * write of the user row.
 */
export { DirectoryExport } from './export.service';
export { DirectoryImport } from './import.service';
export { COLUMNS as TRANSFER_COLUMNS } from './columns';
export { transferRouter } from './transfer.router';

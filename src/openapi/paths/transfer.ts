import { TRANSFER_COLUMNS } from '../../modules/transfer';
import { ADMINS, ANY_USER, arrayOf, constant, E404, errorResponse, int, obj, operation, query, queryBool, str, success } from '../builders';
import { setParams } from './contacts.parts';
import { contactExample, headContact } from './contacts.examples';

const tags = ['Contacts'];
const formats = ['csv', 'xlsx'];

type Column = (typeof TRANSFER_COLUMNS)[number];
/** A CSV of the import's columns (no cell of the examples needs quoting). */
const csvOf = (rows: Array<Record<Column, string>>) =>
  [TRANSFER_COLUMNS.join(','), ...rows.map((row) => TRANSFER_COLUMNS.map((c) => row[c]).join(','))].map((line) => `${line}\r\n`).join('');
type ContactText = 'name' | 'service_no' | 'email' | 'phone' | 'mobile' | 'alternative_mobile' | 'unit_code' | 'department_name' | 'designation_name' | 'rank_name' | 'role_name' | 'status';
const rowOf = (c: Record<ContactText, string | null>, parentServiceNo: string): Record<Column, string> => ({
  name: c.name ?? '',
  service_no: c.service_no ?? '',
  email: c.email ?? '',
  phone: c.phone ?? '',
  mobile: c.mobile ?? '',
  alternative_mobile: c.alternative_mobile ?? '',
  unit: c.unit_code ?? '',
  department: c.department_name ?? '',
  designation: c.designation_name ?? '',
  rank: c.rank_name ?? '',
  role: c.role_name ?? '',
  status: c.status ?? '',
  parent_service_no: parentServiceNo,
});
/** the example directory as a file: what an export writes and an import reads */
const directoryCsv = csvOf([rowOf(headContact, ''), rowOf(contactExample, headContact.service_no)]);
const templateCsv = csvOf([
  { ...rowOf(contactExample, ''), name: 'Example Person', service_no: 'EX-0001', email: 'example.person@example.org', phone: '01700000000', mobile: '', alternative_mobile: '', status: 'offline' },
]);

/** A file download. The .xlsx has no example: a zip is not text (the CSV's is the same content). */
const file = (description: string, csvExample: string) => ({
  description,
  headers: { 'Content-Disposition': { schema: str(), description: 'attachment; filename=contacts-YYYY-MM-DD.csv (or .xlsx; the template: contacts-import-template-YYYY-MM-DD)' } },
  content: {
    'text/csv': { schema: str(), example: csvExample },
    'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': { schema: str({ format: 'binary' }) },
  },
});
const rowErrors = arrayOf(obj({ row: int({ minimum: 1, description: "the file's own row number (the header is row 1)" }), field: str(), message: str() }));
const counts = {
  mode: str({ enum: ['create', 'upsert'] }),
  dry_run: { type: 'boolean' },
  created: int({ minimum: 0 }),
  updated: int({ minimum: 0 }),
  unchanged: int({ minimum: 0 }),
  failed: int({ minimum: 0, description: 'rows with at least one error' }),
  errors_total: int({ minimum: 0 }),
  ignored_columns: arrayOf(str(), { description: 'headers that name no known column' }),
};
const columns = TRANSFER_COLUMNS.join(', ');

export const transferPaths = {
  '/api/contacts/import': {
    post: operation({
      id: 'importContacts',
      tags,
      summary: 'Import contacts from a CSV or Excel file',
      description:
        `A multipart upload (field \`file\`) of a .csv (UTF-8, with or without BOM, \`,\` or \`;\`) or .xlsx file, or a raw \`text/csv\` body (which may be sent with \`Content-Encoding: gzip\`, \`deflate\` or \`br\`; IMPORT_MAX_BYTES then bounds the inflated bytes). A CSV is read as it arrives; an .xlsx is written to a temporary file (TMPDIR) while it is read. Columns are found by header, ignoring case, spaces, \`_\`, \`-\` and \`.\`, also under the names people write for them (E-mail, Mobile No., Employee ID...: docs/import-export.md): ${columns} (and \`password\`, read only with \`passwords=allow\`). A row's parent is another row of the file (by service number, in any order) or an active contact of the same unit and organization. An upsert row naming a contact of another organization is an error of its row, unless the caller manages organizations. All or nothing: one transaction under the directory lock; any row error and nothing is written (422 with every error, the first 1000 listed). \`dry_run=true\` runs the same checks and writes nothing: 200 when every row passes, and the same 422 as the import when some row fails. A phone, mobile or alternative mobile that an .xlsx holds as a number (its leading 0 or + lost) is an error of its row: format the column as Text. \`mode=upsert\` updates the contacts whose service number exists, with the rules of a contact update. A contact imported without a password cannot sign in until an admin resets it. See docs/import-export.md.`,
      roles: ADMINS,
      permission: 'contacts.read + contacts.import',
      params: [
        queryBool('dry_run', 'check every row and write nothing'),
        query('mode', str({ enum: ['create', 'upsert'], default: 'create' }), 'upsert: update the contacts whose service_no exists'),
        query('passwords', str({ enum: ['allow', 'refuse'], default: 'refuse' }), 'allow: read a password column (the password rule applies)'),
      ],
      requestContent: {
        // the example's part holds a CSV file's text; an .xlsx goes the same way, as bytes
        'multipart/form-data': { schema: obj({ file: str({ format: 'binary' }) }), example: { file: directoryCsv } },
        'text/csv': { schema: str(), example: directoryCsv },
      },
      responses: {
        200: success(
          { enum: ['Import completed', 'Import checked: nothing was written'] },
          obj({ ...counts, errors: rowErrors }),
          { mode: 'create', dry_run: false, created: 2, updated: 0, unchanged: 0, failed: 0, errors_total: 0, ignored_columns: [], errors: [] },
          'Every row passed: written, or with dry_run=true checked (errors is empty)',
        ),
        413: errorResponse('The file is larger than IMPORT_MAX_BYTES, has more rows than IMPORT_MAX_ROWS, or is an .xlsx whose parts inflate past their limits or whose cells of the read columns hold more text than the rows may keep (docs/import-export.md)'),
        415: errorResponse('Neither multipart nor text/csv, a file that is neither UTF-8 CSV nor .xlsx, or a text/csv body in another Content-Encoding than gzip, deflate, br or identity'),
        422: {
          description: 'Some rows are wrong (a dry run too): nothing was written',
          content: {
            'application/json': {
              schema: obj({ status: constant('error'), message: constant('Import failed: nothing was written'), errors: rowErrors, report: obj(counts) }),
            },
          },
        },
      },
    }),
  },
  '/api/contacts/import/template': {
    get: operation({
      id: 'getImportTemplate',
      tags,
      summary: 'The import template',
      description:
        'The header row and one example contact. The .xlsx has a second sheet, Lists, with the valid units, departments (with their unit), designations, ranks, roles and statuses, and list validation on those columns of the first.',
      roles: ADMINS,
      permission: 'contacts.read + contacts.import',
      params: [query('format', str({ enum: formats, default: 'xlsx' }))],
      responses: { 200: file('The template file', templateCsv) },
    }),
  },
  '/api/contacts/export': {
    get: operation({
      id: 'exportContacts',
      tags,
      summary: 'Export contacts to a CSV or Excel file',
      description:
        `The filtered set of a listing (or, with \`root_id\`, that contact's subtree, the contact first and without its parent) in the directory's depth-first order, in the import's columns (${columns}), streamed as it is read. In a CSV, a cell that starts with =, +, -, @, tab or carriage return is escaped with a leading \`'\`, which the import removes. Inactive contacts only with \`include_inactive\`.`,
      roles: ANY_USER,
      permission: 'contacts.read',
      params: [
        query('format', str({ enum: formats, default: 'csv' })),
        query('unit_id', int({ minimum: 1 })),
        query('root_id', int({ minimum: 1 }), 'export this contact and everything below it'),
        // the listing's filters; its `format` is the listing's shape, not a file's
        ...setParams.filter((p) => p.name !== 'format'),
      ],
      responses: { 200: file('The file, streamed', directoryCsv), 404: E404('Contact not found') },
    }),
  },
};

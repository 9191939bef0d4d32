import { execFileSync } from 'node:child_process';
import path from 'node:path';

/**
 * The import rules of docs/architecture.md, as `npm run lint` applies them: probes placed (in
 * memory, never written) in the tree are linted with the project's own configuration. A wrong
 * arrow must be reported, a right one not; if the configuration stopped applying a rule, these fail.
 */
const root = path.resolve(__dirname, '../..');

const PROBES: Record<string, [file: string, code: string]> = {
  throughIndex: ['src/modules/accounts/probe.ts', "export { findUser } from '../contacts';\n"],
  deepImport: ['src/modules/accounts/probe.ts', "export { insertContact } from '../contacts/data/contact.writer';\n"],
  leafFile: ['src/modules/contacts/domain/probe.ts', "export { ROLE_ID } from '../../access/roles';\n"],
  deepBesideLeaf: ['src/modules/contacts/domain/probe.ts', "export { PasswordHasher } from '../../access/passwords';\n"],
  forbiddenArrow: ['src/modules/access/probe.ts', "export { findUser } from '../contacts';\n"],
  auditReachesContacts: ['src/modules/audit/probe.ts', "export { findUser } from '../contacts';\n"],
  contactsWriteTheTrail: ['src/modules/contacts/write/probe.ts', "export { AuditTrail } from '../../audit';\n"],
  libReachesUp: ['src/lib/probe.ts', "export { findUser } from '../modules/contacts';\nexport type { Config } from '../config';\n"],
  moduleImportsShell: ['src/modules/contacts/probe.ts', "export type { Config } from '../../config';\n"],
  insideModule: ['src/modules/contacts/read/probe.ts', "export { contactQuery } from '../data/users.queries';\n"],
  dataReachesRules: ['src/modules/contacts/data/probe.ts', "export { ContactWrites } from '../write/contact-writes.service';\nexport { ContactReads } from '../read/contact-reads.service';\n"],
  domainReachesData: ['src/modules/contacts/domain/probe.ts', "export { contactQuery } from '../data/users.queries';\n"],
  dataUsesDomain: ['src/modules/contacts/data/probe.ts', "export { toContact } from '../domain/contact.record';\n"],
  cycle: ['src/modules/contacts/data/tree/lock.ts', "export { ContactReads } from '../../index';\n"],
};

/**
 * ESLint's own API in a child process (Jest's module sandbox cannot load its ESM config): every
 * probe linted in one run, and each probe's import-x messages returned.
 */
function lintProbes(): Record<string, string[]> {
  const script = `
    import { ESLint } from 'eslint';
    const probes = JSON.parse(process.argv[1]);
    const eslint = new ESLint({ cwd: process.cwd() });
    const out = {};
    for (const [name, [file, code]] of Object.entries(probes)) {
      const [result] = await eslint.lintText(code, { filePath: file });
      out[name] = result.messages
        .filter((m) => m.ruleId?.startsWith('import-x/'))
        .map((m) => m.message.replace(/^Unexpected path .* imported in restricted zone\\. /, ''));
    }
    process.stdout.write(JSON.stringify(out));`;
  const absolute = Object.fromEntries(Object.entries(PROBES).map(([name, [file, code]]) => [name, [path.join(root, file), code]]));
  return JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script, JSON.stringify(absolute)], { cwd: root, encoding: 'utf8' }));
}

let errors: Record<string, string[]>;
beforeAll(() => {
  errors = lintProbes();
}, 120_000);

const boundaryErrors = (probe: keyof typeof PROBES): string[] => errors[probe];

describe('import boundaries (npm run lint)', () => {
  test('another module may use contacts through its index.ts', () => {
    expect(boundaryErrors('throughIndex')).toEqual([]);
  });

  test('the audit module, which every writer imports, may import only access; contacts may write the trail through it', () => {
    expect(boundaryErrors('auditReachesContacts')).toEqual(['The audit module may depend only on: access.']);
    expect(boundaryErrors('contactsWriteTheTrail')).toEqual([]);
  });

  test("refuses a deep import of a module's internal file", () => {
    expect(boundaryErrors('deepImport')).toEqual(['Import the contacts module through src/modules/contacts/index.ts, not its internal files.']);
  });

  test("allows a module's leaf file (access/roles.ts, which imports nothing) straight, and no other of its files", () => {
    expect(boundaryErrors('leafFile')).toEqual([]);
    expect(boundaryErrors('deepBesideLeaf')).toEqual(['Import the access module through src/modules/access/index.ts, not its internal files.']);
  });

  test('refuses an arrow the table does not allow (access may use no other module)', () => {
    expect(boundaryErrors('forbiddenArrow')).toEqual(['The access module may not depend on any other module.']);
  });

  test('refuses lib reaching up into a module or the settings', () => {
    const found = boundaryErrors('libReachesUp');
    expect(found).toHaveLength(2);
    expect(new Set(found)).toEqual(new Set(['src/lib is the ground floor: it may import only src/lib and npm packages.']));
  });

  test('refuses a module importing the app shell', () => {
    const found = boundaryErrors('moduleImportsShell');
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(/^Modules may not import the app shell/);
  });

  test("inside contacts, the rules' rooms use data/ and domain/, data/ uses domain/, and neither reaches up", () => {
    expect(boundaryErrors('insideModule')).toEqual([]);
    expect(boundaryErrors('dataUsesDomain')).toEqual([]);
    const data = 'contacts/data holds statements: it may import only contacts/domain, lib and other modules, not the rooms that hold the rules.';
    expect(boundaryErrors('dataReachesRules')).toEqual([data, data]);
    expect(boundaryErrors('domainReachesData')).toEqual(['contacts/domain holds the shapes that data and rules share: it imports nothing else of contacts.']);
  });

  test('reports an import cycle', () => {
    // data/tree/lock.ts importing the module's face closes a loop (the face imports the reads,
    // which import data/tree/lock.ts); the zone above reports the arrow too
    expect((boundaryErrors('cycle')).some((m) => /cycle/i.test(m))).toBe(true);
  });
});

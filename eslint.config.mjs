import js from '@eslint/js';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import { importX } from 'eslint-plugin-import-x';
import globals from 'globals';
import tseslint from 'typescript-eslint';

// Module boundaries (see docs/architecture.md). Every thing has one owner, and
// arrows between the parts of the service run one way only:
//   src/lib      the ground floor: imports only src/lib and npm packages;
//   src/modules  each module owns its tables and rules, is used from outside
//                only through its index.ts, and depends only on the modules
//                listed for it below (settings come in through constructors,
//                never from src/config.ts);
//   migrations   stand alone: a migration never changes when src/ does.
// Tests may reach into a module's internals; cycles are forbidden everywhere.
const MODULE_DEPENDENCIES = {
  access: [],
  audit: ['access'],
  security: ['access'],
  locations: ['access', 'audit'],
  reference: ['access', 'audit', 'contacts'],
  contacts: ['access', 'audit', 'security'],
  accounts: ['access', 'audit', 'contacts', 'security', 'reference'],
  transfer: ['access', 'audit', 'contacts', 'reference'],
  webhooks: ['access', 'audit', 'contacts'],
  'api-tokens': ['access', 'audit', 'reference'],
  scim: ['access', 'audit', 'contacts', 'reference', 'api-tokens'],
};

// Files of a module that import nothing and may be imported straight, beside its index.ts: for
// code that must not load the module's whole graph. A search walk thread (contacts/search/
// walk-thread.ts) tests the role filters by the built-in role ids, without token signing and
// password hashing.
const LEAF_FILES = { access: ['./roles.ts'] };

// The application's outer shell: it wires modules together, so modules and lib must not import it.
const APP_SHELL = ['./src/app.ts', './src/server.ts', './src/cli.ts', './src/startup.ts', './src/config.ts', './src/openapi'];
const OUTSIDE_SRC = ['./seeds', './migrations', './scripts', './bench', './tests'];
// Code outside src/modules that may use a module (through its index.ts only).
const MODULE_CONSUMERS = ['./src/*.ts', './src/openapi/**', './src/types/**', './seeds/**', './scripts/**', './bench/**', './knexfile.ts'];

const moduleNames = Object.keys(MODULE_DEPENDENCIES);
const moduleDir = (name) => `./src/modules/${name}`;

function moduleZones(name, allowed) {
  const forbidden = moduleNames.filter((other) => other !== name && !allowed.includes(other));
  const dependents = moduleNames.filter((other) => MODULE_DEPENDENCIES[other].includes(name));
  const zones = [];
  if (forbidden.length > 0) {
    zones.push({
      target: moduleDir(name),
      from: forbidden.map(moduleDir),
      message: allowed.length > 0
        ? `The ${name} module may depend only on: ${allowed.join(', ')}.`
        : `The ${name} module may not depend on any other module.`,
    });
  }
  // Whoever may import this module at all must do it through its index.ts (or a LEAF_FILES one).
  // (Those that may not import it at all get the error above instead.)
  zones.push({
    target: [...MODULE_CONSUMERS, ...dependents.map((other) => `${moduleDir(other)}/**`)],
    from: moduleDir(name),
    except: ['./index.ts', ...(LEAF_FILES[name] ?? [])],
    message: `Import the ${name} module through src/modules/${name}/index.ts, not its internal files.`,
  });
  return zones;
}

const boundaryZones = [
  {
    target: './src/lib',
    from: ['./src/modules', './src/types', ...APP_SHELL, ...OUTSIDE_SRC],
    message: 'src/lib is the ground floor: it may import only src/lib and npm packages.',
  },
  {
    target: './src/modules',
    from: [...APP_SHELL, ...OUTSIDE_SRC],
    message: 'Modules may not import the app shell (app, server, cli, startup, config, openapi), seeds, migrations, scripts, bench or tests; settings come in through constructors.',
  },
  {
    target: './migrations',
    from: ['./src', './seeds', './scripts', './bench', './tests'],
    message: 'Migrations stand alone: they may import only migrations/ and npm packages.',
  },
  ...Object.entries(MODULE_DEPENDENCIES).flatMap(([name, allowed]) => moduleZones(name, allowed)),
  // Inside contacts, statements and rules live apart: data/ holds the SQL (queries, writers, the
  // tree's derived columns, the search grams), domain/ the shapes both sides share; the rooms
  // above them (http, read, write, search) hold the rules and may use both, never the reverse.
  {
    target: './src/modules/contacts/data',
    from: ['./src/modules/contacts/http', './src/modules/contacts/read', './src/modules/contacts/write', './src/modules/contacts/search', './src/modules/contacts/index.ts'],
    message: 'contacts/data holds statements: it may import only contacts/domain, lib and other modules, not the rooms that hold the rules.',
  },
  {
    target: './src/modules/contacts/domain',
    from: ['./src/modules/contacts/data', './src/modules/contacts/http', './src/modules/contacts/read', './src/modules/contacts/write', './src/modules/contacts/search', './src/modules/contacts/index.ts'],
    message: 'contacts/domain holds the shapes that data and rules share: it imports nothing else of contacts.',
  },
];

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'coverage/', 'tmp/', 'data/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node, ...globals.jest } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': ['error', { allow: ['warn', 'error'] }],
      eqeqeq: ['error', 'smart'],
    },
  },
  {
    files: ['**/*.js', '**/*.cjs'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['**/*.ts'],
    plugins: { 'import-x': importX },
    settings: {
      // Files parsed to follow imports; they reuse typescript-eslint's parser from languageOptions.
      'import-x/extensions': ['.ts', '.js'],
      'import-x/resolver-next': [
        createTypeScriptImportResolver({ project: `${import.meta.dirname}/tsconfig.json` }),
      ],
    },
    rules: {
      'import-x/no-restricted-paths': ['error', { basePath: import.meta.dirname, zones: boundaryZones }],
      // No cycle may run through npm packages, so their files are not followed.
      // import-x never counts `import type` edges: a cycle of types only is erased at compile time.
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
    },
  },
  {
    // knex's .stream() gives its connection back to the pool twice (knex/knex#6288), which once
    // lent a transaction's connection to other requests: stream rows with lib/db streamRows.
    files: ['src/**/*.ts', 'scripts/**/*.ts', 'bench/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.property.name='stream'][arguments.length=0]",
          message: "knex's .stream() releases its connection twice (knex/knex#6288): use streamRows from src/lib/db.",
        },
      ],
    },
  },
);

#!/usr/bin/env bash
# Checks how `npm ci` installed the native modules, since an install that downloaded a binary
# looks the same as one that compiled it once it is done, and offline a download that was tried
# fails quietly into a compile:
# - better-sqlite3's installer (prebuild-install) must be set to compile, never to download
#   from GitHub: it reads `buildFromSource` from .prebuild-installrc; and its binary must be one
#   that node-gyp compiled here (build/Release/obj.target beside it);
# - bcrypt (node-gyp-build, which downloads nothing) loads the binary its npm package ships or
#   one compiled here: printed, not checked.
# Both must load and work under the Node.js that runs this.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

node - <<'JS'
const fs = require('node:fs');
const path = require('node:path');

const fail = (message) => {
  console.error(`check-native-install: ${message}`);
  process.exit(1);
};

const sqliteDir = path.dirname(require.resolve('better-sqlite3/package.json'));
// prebuild-install's own reading of its settings, from the folder npm runs it in
const cwd = process.cwd();
process.chdir(sqliteDir);
const settings = require(require.resolve('prebuild-install/rc', { paths: [sqliteDir] }))(
  require(path.join(sqliteDir, 'package.json')),
);
process.chdir(cwd);
if (!settings.buildFromSource) {
  fail('better-sqlite3 would be downloaded from GitHub by prebuild-install: .prebuild-installrc with buildFromSource=true is missing');
}
if (!fs.existsSync(path.join(sqliteDir, 'build', 'Release', 'obj.target'))) {
  fail(`better-sqlite3's binary was not compiled here (no ${path.join(sqliteDir, 'build', 'Release', 'obj.target')})`);
}

const Database = require('better-sqlite3');
const db = new Database(':memory:');
const sqlite = db.prepare('select sqlite_version() as v').get().v;
db.close();

const bcrypt = require('bcrypt');
if (!bcrypt.compareSync('x', bcrypt.hashSync('x', 4))) fail('bcrypt does not verify its own hash');
const bcryptDir = path.dirname(require.resolve('bcrypt/package.json'));
const bcryptBinary = require(require.resolve('node-gyp-build', { paths: [bcryptDir] })).path(bcryptDir);

console.log(`Node.js ${process.version}: better-sqlite3 compiled here (SQLite ${sqlite}); bcrypt from ${path.relative(cwd, bcryptBinary)}`);
JS

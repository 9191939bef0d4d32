#!/usr/bin/env bash
# Runs the Postman collection (postman/) with newman against a throw-away server: builds if
# needed, starts dist/src/server.js on a free port over a fresh SQLite file in a temporary
# directory, waits for GET /ready, runs the collection twice (the second run proves it can run
# again against the same database, after the README's own import of postman/sample-import.csv
# between them), stops the server with SIGTERM and exits non-zero if either
# run failed. Extra arguments go to both newman runs, e.g. `npm run postman -- --verbose`.
#
# Settings (environment): ADMIN_EMAIL / ADMIN_PASSWORD (seeded Super_admin; development
# defaults otherwise), POSTMAN_READY_TIMEOUT (seconds to wait for /ready, default 60).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

COLLECTION="$ROOT/postman/directory-service.postman_collection.json"
ENVIRONMENT="$ROOT/postman/directory-service.postman_environment.json"
NEWMAN="$ROOT/node_modules/.bin/newman"
SERVER="$ROOT/dist/src/server.js"
ADMIN_EMAIL="${ADMIN_EMAIL:-admin@example.com}"
ADMIN_PASSWORD="${ADMIN_PASSWORD:-Admin@12345}"
READY_TIMEOUT="${POSTMAN_READY_TIMEOUT:-60}"

log() { printf '[postman] %s\n' "$*" >&2; }

if [[ ! -x "$NEWMAN" ]]; then
  log "newman is not installed: run npm install"
  exit 1
fi

# ---- build when dist is missing or older than its sources
needs_build() {
  [[ -f "$SERVER" ]] || return 0
  [[ -n "$(find src migrations seeds knexfile.ts tsconfig.json tsconfig.build.json package.json \
    -newer "$SERVER" -print -quit 2>/dev/null)" ]]
}
if needs_build; then
  log "building (npm run build)"
  npm run --silent build
else
  log "dist is up to date; not building"
fi

WORK="$(mktemp -d "${TMPDIR:-/tmp}/directory-postman.XXXXXX")"
SERVER_LOG="$WORK/server.log"
SERVER_PID=""
STATUS=1

stop_server() {
  [[ -n "$SERVER_PID" ]] || return 0
  local pid="$SERVER_PID" code=0
  SERVER_PID=""
  if kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid" 2>/dev/null || true
    # graceful shutdown finishes requests in flight; give it 20 s before SIGKILL
    for _ in $(seq 1 80); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.25
    done
    if kill -0 "$pid" 2>/dev/null; then
      log "server $pid did not stop after SIGTERM; killing it"
      kill -KILL "$pid" 2>/dev/null || true
    fi
  fi
  wait "$pid" 2>/dev/null || code=$?
  if [[ $code -ne 0 ]]; then
    log "warning: server exited with code $code after SIGTERM (see $SERVER_LOG)"
  fi
}

cleanup() {
  stop_server
  if [[ $STATUS -eq 0 ]]; then
    rm -rf "$WORK"
  else
    log "kept $WORK (server log: $SERVER_LOG)"
  fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

free_port() {
  node -e "const s = require('net').createServer(); s.listen(0, '127.0.0.1', () => { console.log(s.address().port); s.close(); });"
}

probe() {
  node -e "fetch(process.argv[1]).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))" "$1"
}

# ---- start the server: a fresh SQLite file, and no .env (it runs from the temporary directory)
start_server() {
  PORT="$(free_port)"
  BASE_URL="http://127.0.0.1:$PORT"
  (
    cd "$WORK"
    exec env \
      NODE_ENV=development LOG_LEVEL=warn BCRYPT_COST=4 PORT="$PORT" \
      DB_CLIENT=sqlite SQLITE_FILENAME="$WORK/directory.sqlite3" DATABASE_URL= REDIS_URL= \
      ADMIN_EMAIL="$ADMIN_EMAIL" ADMIN_PASSWORD="$ADMIN_PASSWORD" \
      node "$SERVER"
  ) >"$SERVER_LOG" 2>&1 &
  SERVER_PID=$!
  local deadline=$((SECONDS + READY_TIMEOUT))
  while ((SECONDS < deadline)); do
    if ! kill -0 "$SERVER_PID" 2>/dev/null; then
      wait "$SERVER_PID" 2>/dev/null || true
      SERVER_PID=""
      return 1
    fi
    if probe "$BASE_URL/ready"; then return 0; fi
    sleep 0.25
  done
  log "server not ready after ${READY_TIMEOUT}s"
  stop_server
  return 1
}

started=""
for attempt in 1 2 3; do
  rm -f "$WORK"/directory.sqlite3*
  if start_server; then
    started=yes
    break
  fi
  # another process may have taken the port between free_port and listen: try another one
  grep -q EADDRINUSE "$SERVER_LOG" 2>/dev/null || break
  log "port $PORT was taken; retrying ($attempt)"
done
if [[ -z "$started" ]]; then
  log "the server did not start; its log:"
  cat "$SERVER_LOG" >&2 || true
  exit 1
fi
log "server $SERVER_PID ready at $BASE_URL (database $WORK/directory.sqlite3)"

run_collection() {
  local run="$1"
  shift
  local began=$SECONDS code=0
  log "newman run $run of 2"
  "$NEWMAN" run "$COLLECTION" \
    --environment "$ENVIRONMENT" \
    --env-var "baseUrl=$BASE_URL" \
    --env-var "adminEmail=$ADMIN_EMAIL" \
    --env-var "adminPassword=$ADMIN_PASSWORD" \
    --reporters cli \
    --timeout-request 30000 \
    "$@" || code=$?
  log "run $run: exit code $code, $((SECONDS - began))s"
  return "$code"
}

# the README's sample import, for real, as a reader following it would do between two runs
sample_import() {
  node -e '
    const [base, email, password, file] = process.argv.slice(1);
    (async () => {
      const login = await fetch(base + "/api/auth/login", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email, password }) });
      const token = (await login.json()).data.token;
      const form = new FormData();
      form.append("file", new Blob([require("fs").readFileSync(file)], { type: "text/csv" }), "sample-import.csv");
      const res = await fetch(base + "/api/contacts/import", { method: "POST", headers: { authorization: "Bearer " + token }, body: form });
      if (res.status !== 200) throw new Error("the sample import answered " + res.status + ": " + (await res.text()));
    })().catch((err) => { console.error(err.message); process.exit(1); });
  ' "$BASE_URL" "$ADMIN_EMAIL" "$ADMIN_PASSWORD" "$ROOT/postman/sample-import.csv"
}

first=0
second=0
run_collection 1 "$@" || first=$?
log "importing postman/sample-import.csv for real, as the README does"
sample_import || first=1
run_collection 2 "$@" || second=$?

if [[ $first -ne 0 || $second -ne 0 ]]; then
  log "FAILED (run 1: $first, run 2: $second); server log tail:"
  tail -n 40 "$SERVER_LOG" >&2 || true
  exit 1
fi
STATUS=0
log "both runs passed"

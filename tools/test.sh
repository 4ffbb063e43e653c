#!/usr/bin/env bash
# `make test`: builds what the tests need, runs the unit suites, then starts the
# tests' own native stack (apart from the demo stack: own directory and ports),
# runs the end-to-end suites against it and stops it again, whatever happened.
# One line per suite; each suite's full output goes to .stack/logs/test-<suite>.log
# and is shown only when the suite fails. Ends with "suites: N passed, M failed".
set -uo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
logs=$repo/.stack/logs
mkdir -p "$logs"

# Unit suites need no running service; e2e suites need the test stack.
# Suites are make targets defined in mk/*.mk, next to the code they test.
builds=(telegraf k6 dashboards-deps)
unit_suites=(test-unit-stack test-unit-k6 test-unit-lib test-unit-dashboards test-unit-compose fuzz-cql)
e2e_suites=(test-e2e-stack test-e2e-sql test-unit-cql test-unit-minifolio-modules test-e2e-telegraf-configs)

passed=0 failed=0 failed_names=()
run_suite() { # NAME COMMAND...
  local name=$1 t0=$SECONDS log="$logs/test-$1.log"
  shift
  if "$@" >"$log" 2>&1; then
    printf 'PASS  %-28s %4ss\n' "$name" $((SECONDS - t0))
    passed=$((passed + 1))
  else
    printf 'FAIL  %-28s %4ss  (log: %s)\n' "$name" $((SECONDS - t0)) "${log#"$repo"/}"
    tail -n 40 "$log" | sed 's/^/      | /'
    failed=$((failed + 1))
    failed_names+=("$name")
  fi
}

finish() {
  echo
  if [ "$failed" -gt 0 ]; then echo "failed: ${failed_names[*]}"; fi
  echo "suites: $passed passed, $failed failed"
  [ "$failed" -eq 0 ]
}

echo "==> building (logs in .stack/logs/)"
for b in "${builds[@]}"; do
  run_suite "build-$b" make --no-print-directory "$b"
done
[ "$failed" -eq 0 ] || { finish; exit 1; }

echo "==> unit tests"
for s in "${unit_suites[@]}"; do run_suite "${s#test-}" make --no-print-directory "$s" FUZZTIME=15s; done

# The test stack: its own state and ports, and a password that is recognisable
# so the tests can prove it never leaks into logs or tags.
export FP_STACK_DIR=$repo/.stack/test FP_PG_PORT=55433 FP_INFLUX_PORT=58087 FP_INFLUX_RPC_PORT=58089 \
  FP_TELEGRAF_PORT=58094 FP_MINIFOLIO_PORT=9230 FOLIO_DB_PASSWORD=fp-test-S3cret-pw
export FP_PG_DSN="postgres://folio:$FOLIO_DB_PASSWORD@127.0.0.1:$FP_PG_PORT/folio?sslmode=disable"
export FP_INFLUX_URL="http://127.0.0.1:$FP_INFLUX_PORT" FP_BIN=$repo/bin FP_REQUIRE_STACK=1

echo "==> end-to-end tests (test stack in .stack/test)"
trap 'stack/stack.sh down >/dev/null 2>&1' EXIT
if ! stack/stack.sh up >"$logs/test-stack-up.log" 2>&1; then
  echo "FAIL  stack-up (log: .stack/logs/test-stack-up.log)"
  tail -n 5 "$logs/test-stack-up.log" | sed 's/^/      | /'
  failed=$((failed + 1))
  failed_names+=(stack-up)
else
  for s in "${e2e_suites[@]}"; do run_suite "${s#test-}" make --no-print-directory "$s"; done
fi
finish

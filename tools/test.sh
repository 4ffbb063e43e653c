#!/usr/bin/env bash
# `make test`: builds what the tests need, runs the unit suites, then starts the
# tests' own native stack (apart from the demo stack: own directory and ports),
# runs the end-to-end suites against it and stops it again, whatever happened.
# One line per suite; each suite's full output goes to .stack/logs/test-<suite>.log
# and is shown only when the suite fails. Ends with "suites: N passed, M failed".
set -uo pipefail
# shellcheck source=tools/local-env.sh
. "$(dirname "$0")/local-env.sh" # only tools/local-env.allow's part of the caller's environment
cd "$(dirname "$0")/.." || exit 1
repo=$PWD
logs=$repo/.stack/logs
mkdir -p "$logs"

# Unit suites need no running service; e2e suites need the test stack.
# Suites are make targets defined in mk/*.mk, next to the code they test.
builds=(telegraf k6 k6-stock minifolio dashboards-deps contract-deps opensearch jmeter keycloak actionlint staticcheck)
unit_suites=(lint test-unit-repo test-unit-cli test-unit-stack test-unit-k6 test-unit-lib test-unit-workflows test-unit-k8s test-unit-k6-document test-unit-dashboards test-unit-compose fuzz-cql fuzz-search test-unit-report test-unit-bench-search test-unit-verdict test-unit-jmeter test-unit-bench test-unit-bench-samples test-unit-github)
# test-unit-minifolio runs every minifolio package (CQL, storage, gateway, modules)
# against the test stack's PostgreSQL. test-e2e-dashboards runs every panel query
# against the CICO smoke run that test-e2e-cico recorded. test-e2e-search runs
# the mod-search workflow (minifolio's mod-search on the stack's OpenSearch) and
# leaves its testid in last-search-testid, as test-e2e-cico leaves last-cico-testid. test-e2e-report, test-e2e-report-mechanisms (under
# missing-index, leak and juniper-patron-blocks) and test-e2e-report-search make their own short runs
# and check the report's cells against InfluxDB; test-e2e-scale-mechanisms runs missing-index on a
# tenant with a closed-loan history and drops that tenant after. test-e2e-contract validates every answer of the CICO
# sequence against the JSON schema the answering FOLIO module publishes (minifolio/contract/).
# test-e2e-scale runs 1, 2 and 4 local runners (RUNNERS=N) and checks the verdict over all of them.
# test-e2e-gate makes four short runs: a baseline of two on fast, candidates on
# fast-checkout-plus50 (exit 99) and fast (exit 0). test-e2e-folio-gate runs the steps of
# .github/workflows/folio-gate.yml from its YAML against minifolio as "your FOLIO" (a baseline job,
# a passing candidate, a slowed one failing), the job's runner on a stack of its own.
e2e_suites=(test-e2e-stack test-e2e-sql test-unit-minifolio test-e2e-contract test-e2e-telegraf-configs test-e2e-cico test-e2e-run-cli test-e2e-report test-e2e-report-mechanisms test-e2e-scale-mechanisms test-e2e-search test-e2e-report-search test-e2e-dashboards test-e2e-stock-k6 test-e2e-influx-loss test-e2e-db-password test-e2e-scale test-e2e-gate test-e2e-folio-gate test-e2e-local-only test-e2e-influx-lp test-e2e-jmeter test-e2e-influx-auth test-e2e-eureka-workflows test-e2e-jmeter-eureka)

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

# What is missing is installed here, after local-env.sh (not as make's prerequisite, before it).
tools/deps.sh || exit 1
echo "==> building (logs in .stack/logs/)"
for b in "${builds[@]}"; do
  run_suite "build-$b" make --no-print-directory "$b"
done
[ "$failed" -eq 0 ] || { finish; exit 1; }

echo "==> unit tests"
for s in "${unit_suites[@]}"; do run_suite "${s#test-}" make --no-print-directory "$s" FUZZTIME=15s; done

# shellcheck source=tools/test-env.sh
. tools/test-env.sh

echo "==> end-to-end tests (test stack in .stack/test)"
# stack.sh down also stops the minifolio that the CICO suite started (folio-perf run).
trap 'stack/stack.sh down >/dev/null 2>&1' EXIT
# With OpenSearch (mod-search's tests and the search workflow) and Keycloak
# (minifolio's Eureka platform tests: internal/eureka in test-unit-minifolio).
if ! stack/stack.sh up search eureka >"$logs/test-stack-up.log" 2>&1; then
  echo "FAIL  stack-up (log: .stack/logs/test-stack-up.log)"
  tail -n 5 "$logs/test-stack-up.log" | sed 's/^/      | /'
  failed=$((failed + 1))
  failed_names+=(stack-up)
else
  # last-<workflow>-testid: written by this run's workflow suites for the dashboards
  # suite; one left by an earlier `make test` would let it pass against a stale run.
  rm -f "$FP_STACK_DIR"/last-*-testid
  for s in "${e2e_suites[@]}"; do
    run_suite "${s#test-}" make --no-print-directory "$s"
  done
fi
finish

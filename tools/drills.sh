#!/usr/bin/env bash
# `make drills`: the reliability drills as one suite, on the tests' own stack (tools/test-env.sh).
# Whole runs (folio-perf run) driven through faults and bad input; after each, nothing the run made
# is left open or checked out, and what was lost is said:
#   tests/e2e/drills.test.mjs       Ctrl-C under lotus, a second Ctrl-C, a foreign loan, a module
#                                   and PostgreSQL restarted mid-run, a failed undo; on Eureka
#                                   (sunflower, Keycloak joins the stack): tokens expiring mid-run,
#                                   a reused refresh token, a sidecar restarted mid-run
#   tests/e2e/influx-loss.test.mjs  InfluxDB paused (nothing lost) and stopped past the retry time
#                                   (the loss said, SAMPLE_LOSS), a small max-body-size
#   tests/e2e/run-cli.test.mjs      a wrong tenant and a wrong password stopped before k6
#   tests/e2e/db-password.test.mjs  a database password with @ # / ? % space ' " \ (a stack of its own)
# The last three are in `make test` too; the first takes about 5 minutes, so it is here only.
# Starts the test stack when it is not up, and stops it again only then (about 8 minutes in all).
set -uo pipefail
# shellcheck source=tools/local-env.sh
. "$(dirname "$0")/local-env.sh" # only tools/local-env.allow's part of the caller's environment
cd "$(dirname "$0")/.."
# shellcheck source=tools/test-env.sh
. tools/test-env.sh
export FP_SEARCH=0 # no drill needs OpenSearch
# Started when not every service is up; stopped again afterwards only when none was up before
# (never a stack someone is using).
started=
if ! status=$(stack/stack.sh status 2>/dev/null); then
  echo "==> drills: starting the test stack ($FP_STACK_DIR)"
  if ! grep -qw up <<<"$status"; then
    started=1
    trap 'stack/stack.sh down >/dev/null 2>&1' EXIT
  fi
  stack/stack.sh up >"$FP_STACK_DIR.drills-up.log" 2>&1 || { echo "drills: the test stack did not start (log: $FP_STACK_DIR.drills-up.log)"; exit 1; }
fi
node --test --test-reporter=spec --test-concurrency=1 \
  tests/e2e/drills.test.mjs tests/e2e/influx-loss.test.mjs tests/e2e/run-cli.test.mjs tests/e2e/db-password.test.mjs
rc=$?
[ -n "$started" ] && echo "==> drills: stopping the test stack it started"
exit $rc

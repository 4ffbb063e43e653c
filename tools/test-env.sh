# shellcheck shell=bash
# The tests' own stack: its own state and ports, apart from the demo stack so both
# can run, and a recognisable password so tests can prove it never leaks into
# logs or tags. Sourced by tools/test.sh; source it yourself to run one suite:
#   source tools/test-env.sh && stack/stack.sh up && make test-e2e-cico
# FP_TEST_PORT_OFFSET (default 0) shifts every port, so that two checkouts (e.g. two
# git worktrees) can run their test stacks side by side.
repo=${repo:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
# Never a real FOLIO: what points a run elsewhere is removed from the shell that sources this (the
# README has users export FOLIO_PASSWORD, and then perhaps FOLIO_URL, for their own runs). The
# entry points (make test, make drills) go further and keep only tools/local-env.allow's list.
unset FOLIO_URL FOLIO_TENANT FOLIO_USER FOLIO_PASSWORD FOLIO_TOKEN FOLIO_DB_HOST FOLIO_DB_PORT FOLIO_DB_NAME \
  FOLIO_DB_USER FOLIO_DB_SSLMODE FOLIO_ENV K6_ENV DATA CHECKIN_POOL CHECKIN_WINDOW RESULTS_DIR BASELINE THRESHOLDS INFLUX_URL K6_OUT
for v in $(compgen -e); do
  case $v in REINDEX_* | K6_INFLUXDB_* | MINIFOLIO_*) unset "$v" ;; esac
done
unset v
# Tools and runs started from here refuse a target off this machine (lib/loopback.js).
export FP_LOCAL_ONLY=1
off=${FP_TEST_PORT_OFFSET:-0}
# shellcheck source=tools/defaults.sh
FP_STACK_DIR=$repo/.stack/test FP_PG_PASSWORD=fp-test-S3cret-pw FOLIO_DB_PASSWORD=fp-test-S3cret-pw fp_repo=$repo
. "$repo/tools/defaults.sh"
export FP_STACK_DIR FP_PG_PORT=$((FP_DEFAULT_PG_PORT + 1 + off)) FP_INFLUX_PORT=$((FP_DEFAULT_INFLUX_PORT + 1 + off)) \
  FP_INFLUX_RPC_PORT=$((FP_DEFAULT_INFLUX_RPC_PORT + 1 + off)) FP_TELEGRAF_PORT=$((FP_DEFAULT_TELEGRAF_PORT + 1 + off)) \
  FP_MINIFOLIO_PORT=$((FP_DEFAULT_MINIFOLIO_PORT + 100 + off)) FP_OPENSEARCH_PORT=$((FP_DEFAULT_OPENSEARCH_PORT + 1 + off)) \
  FP_K6_API_PORT=$((FP_DEFAULT_K6_API_PORT + 1 + off)) FP_PG_PASSWORD FOLIO_DB_PASSWORD
export FP_KEYCLOAK_PORT=$((FP_DEFAULT_KEYCLOAK_PORT + 1 + off))
unset off
# The test stack runs OpenSearch too: mod-search's tests (test-unit-minifolio) need it.
export FP_SEARCH=1
export FP_PG_DSN="postgres://folio:$FOLIO_DB_PASSWORD@127.0.0.1:$FP_PG_PORT/folio?sslmode=disable"
export FP_INFLUX_URL="http://127.0.0.1:$FP_INFLUX_PORT" FP_BIN=$repo/bin FP_REQUIRE_STACK=1
# The test stack's OpenSearch (stack/stack.sh up search), for mod-search's tests.
export FP_OPENSEARCH_URL="http://127.0.0.1:$FP_OPENSEARCH_PORT"

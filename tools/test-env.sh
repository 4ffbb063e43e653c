# shellcheck shell=bash
# The tests' own stack: its own state and ports, apart from the demo stack so both
# can run, and a recognisable password so tests can prove it never leaks into
# logs or tags. Sourced by tools/test.sh; source it yourself to run one suite:
#   source tools/test-env.sh && stack/stack.sh up && make test-e2e-cico
repo=${repo:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
export FP_STACK_DIR=$repo/.stack/test FP_PG_PORT=55433 FP_INFLUX_PORT=58087 FP_INFLUX_RPC_PORT=58089 \
  FP_TELEGRAF_PORT=58094 FP_MINIFOLIO_PORT=9230 FOLIO_DB_PASSWORD=fp-test-S3cret-pw
export FP_PG_DSN="postgres://folio:$FOLIO_DB_PASSWORD@127.0.0.1:$FP_PG_PORT/folio?sslmode=disable"
export FP_INFLUX_URL="http://127.0.0.1:$FP_INFLUX_PORT" FP_BIN=$repo/bin FP_REQUIRE_STACK=1

#!/usr/bin/env bash
# `make bench-leak`: the report's leak verdict on longevity-length runs. Two CICO runs of
# BENCH_LEAK_DURATION (13m) at a constant BENCH_LEAK_VUS (2) users without think time, one under
# minifolio `fast` (nothing leaks) and one under `leak` (mod-circulation retains 256 bytes per
# request), each followed by `folio-perf report`; prints each module's RSS growth per hour and
# verdict from the reports' memory table. Expected: `leak` for mod-circulation under `leak`,
# `no leak` for every other row of both runs. A benchmark, not a test (about 30 minutes); needs
# the stack (make stack-up, or the test stack: source tools/test-env.sh && stack/stack.sh up).
set -euo pipefail
# shellcheck source=tools/local-env.sh
. "$(dirname "$0")/local-env.sh" # this machine's stack only, whatever the shell exports
cd "$(dirname "$0")/.."
# shellcheck source=tools/defaults.sh
. tools/defaults.sh
VUS=${BENCH_LEAK_VUS:-2}
DURATION=${BENCH_LEAK_DURATION:-13m}
PROFILES=${BENCH_LEAK_PROFILES:-fast leak}
export FP_INFLUX_URL=${FP_INFLUX_URL:-http://127.0.0.1:$FP_INFLUX_PORT}
stamp=$(fp_testid_stamp)
for p in $PROFILES; do
  id=bench-leak-$stamp-$p
  echo "==> bench-leak: $p, $VUS users without think time for $DURATION, testid $id ($(date -u +%H:%M) UTC)"
  PROFILE=longevity VUS=$VUS DURATION=$DURATION THINK=none MINIFOLIO_PROFILE=$p TESTID=$id PROGRESS_EVERY=300 \
    node tools/folio-perf.mjs run >"$FP_STACK_DIR/logs/bench-leak-$p.log" 2>&1 || { echo "==> bench-leak: the $p run failed (log: $FP_STACK_DIR/logs/bench-leak-$p.log)"; exit 1; }
  node tools/folio-perf.mjs report "$id" >/dev/null
  # The memory table's caption and rows (module, RSS avg, growth MiB/h, growth %/h, R², 2nd half, verdict).
  awk '/^\*\*(Table [0-9]+\. )?Module memory \(RSS\) trend/{on=1; print; next} on && /^\|/{print; next} on && !/^\|/ && NF{on=0}' "results/$id/report.md"
  grep '^Leak verdict' "results/$id/report.md"
done

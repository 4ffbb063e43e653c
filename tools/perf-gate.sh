#!/usr/bin/env bash
# make perf-gate: the regression gate as GitHub Actions runs it (.github/workflows/perf-gate.yml).
# A baseline is only comparable on the machine that recorded it, so without GATE_BASELINE the gate
# records one here first: GATE_RUNS (default 2) CICO runs on minifolio `fast`, then the candidate
# run on minifolio GATE_CANDIDATE (default fast), then `folio-perf verdict` on the candidate against
# that baseline. With GATE_BASELINE=<format-2 file> only the candidate runs. Each run is
# PROFILE=smoke (1 user, no think time) for GATE_DURATION (default 60s); its own thresholds
# (thresholds.json's SLOs) fail it on their own. Exit: the first run's failure code, else the
# verdict's (99 when the comparison says regressed). GATE_ALPHA: the verdict's false-alarm rate.
set -uo pipefail
cd "$(dirname "$0")/.."
. tools/defaults.sh
export FP_INFLUX_URL=${FP_INFLUX_URL:-http://127.0.0.1:$FP_INFLUX_PORT}
runs=${GATE_RUNS:-2} duration=${GATE_DURATION:-60s} candidate=${GATE_CANDIDATE:-fast} alpha=${GATE_ALPHA:-0.05}
stamp=$(date -u +%Y%m%dT%H%M%SZ)

gate_run() { # NAME MINIFOLIO_PROFILE
  local testid="gate-$1-$stamp" rc
  PROFILE=smoke DURATION="$duration" MINIFOLIO_PROFILE="$2" TESTID="$testid" tools/run.sh >&2
  rc=$?
  if [ "$rc" -ne 0 ]; then
    echo "perf-gate: the $1 run ($testid) failed with exit $rc; fix: read its output above (99: an SLO of thresholds.json failed)" >&2
    exit "$rc"
  fi
  echo "$testid"
}

baseline=${GATE_BASELINE:-}
if [ -z "$baseline" ]; then
  ids=()
  for i in $(seq 1 "$runs"); do ids+=("$(gate_run "baseline$i" fast)") || exit $?; done
  baseline=results/gate-baseline-$stamp.json
  node tools/folio-perf.mjs baseline "${ids[@]}" --out "$baseline" || exit 1
fi
cand=$(gate_run candidate "$candidate") || exit $?
node tools/folio-perf.mjs verdict "$cand" --baseline "$baseline" --alpha "$alpha"

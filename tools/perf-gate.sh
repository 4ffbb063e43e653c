#!/usr/bin/env bash
# make perf-gate: the regression gate as GitHub Actions runs it (.github/workflows/perf-gate.yml).
#
# A baseline is only comparable on the machine that recorded it, so without GATE_BASELINE the gate
# records one here, around the candidate: GATE_RUNS baseline runs (default 4), half before the
# candidate run and half after, so a machine that speeds up or slows down during the job moves both
# sides alike.
# Then `folio-perf verdict` judges the candidate against that baseline, every metric relative to the
# run's own speed (GATE_CONTROL, default `speed`: --control speed, which cancels a runner whose speed
# drifts between runs; `none` judges absolute quantiles). make bench-gate measured k = 4 runs of 120 s
# with --control speed at 0 % false alarms and 100 % power at +25 % on check-out (docs/benchmarks.md).
#
# Which code each side runs:
#   GATE_BASE_REF=<git ref>  the baseline runs are made by that commit's folio-perf and minifolio
#                            (a detached worktree under the stack directory, built with make), the
#                            candidate by this checkout: a pull request's change is judged against
#                            its base. The workflow sets it to the pull request's base (or the commit
#                            before a push). Both sides share this checkout's stack and database.
#   unset                    both sides run this checkout: the gate then measures only what differs
#                            between GATE_CANDIDATE's minifolio profile and `fast` (e.g.
#                            GATE_CANDIDATE=fast-checkout-plus50 shows the gate failing).
# GATE_BASELINE=<format-2 file>: no baseline runs; only the candidate runs.
#
# Each run is PROFILE=smoke (1 user, no think time) for GATE_DURATION (default 120s); its own
# thresholds (thresholds.json's SLOs) fail it on their own. Every run, the base worktree's too,
# stays in this checkout's results/<testid>/ with its report.html (the workflow uploads results/).
# Exit: a run's failure code, else the verdict's (99 when the comparison says regressed).
# GATE_ALPHA: the verdict's false-alarm rate.
set -uo pipefail
# shellcheck source=tools/local-env.sh
. "$(dirname "$0")/local-env.sh" # only tools/local-env.allow's part of the caller's environment
cd "$(dirname "$0")/.."
# What the runs need built and running (make's prerequisites would run before local-env.sh).
make --no-print-directory run-deps >&2 || exit 1
. tools/defaults.sh
export FP_STACK_DIR # the base worktree's scripts use this checkout's stack
export FP_INFLUX_URL=${FP_INFLUX_URL:-http://127.0.0.1:$FP_INFLUX_PORT}
runs=${GATE_RUNS:-4} duration=${GATE_DURATION:-120s} candidate=${GATE_CANDIDATE:-fast} alpha=${GATE_ALPHA:-0.05}
control=${GATE_CONTROL:-speed}
stamp=$(fp_testid_stamp)
base_ref=${GATE_BASE_REF:-}
# A push that creates a branch has no commit before it (GitHub sends forty zeros).
if [[ $base_ref =~ ^0+$ ]]; then
  echo "==> perf-gate: no base commit (a new branch): both sides run this checkout" >&2
  base_ref=
fi
base_dir=

die() {
  echo "perf-gate: $1; fix: $2" >&2
  exit 1
}

[[ $runs =~ ^[0-9]+$ ]] && [ "$runs" -ge 2 ] || die "GATE_RUNS=$runs is not a number of baseline runs of 2 or more (the verdict needs 2 to see the between-run spread)" "GATE_RUNS=4 (the measured setting), or GATE_BASELINE=<file>"

gate_run() { # NAME MINIFOLIO_PROFILE [CHECKOUT]: prints the run's summary.json path
  local testid="gate-$1-$stamp" dir=${3:-$PWD} rc
  # Both sides share this checkout's running stack: folio-perf run then only builds. A base older
  # than folio-perf's own run has tools/run.sh instead, which never starts the stack: used there.
  local door=(node tools/folio-perf.mjs run)
  [ -x "$dir/tools/run.sh" ] && door=(tools/run.sh)
  (cd "$dir" && PROFILE=smoke DURATION="$duration" MINIFOLIO_PROFILE="$2" TESTID="$testid" "${door[@]}") >&2
  rc=$?
  # A base worktree's run is kept here, where the job uploads results/ (the worktree goes).
  if [ "$dir" != "$PWD" ] && [ -d "$dir/results/$testid" ]; then
    rm -rf "results/$testid" && mkdir -p results && mv "$dir/results/$testid" "results/$testid"
  fi
  if [ "$rc" -ne 0 ]; then
    echo "perf-gate: the $1 run ($testid) failed with exit $rc; fix: read its output above (99: an SLO of thresholds.json failed)" >&2
    exit "$rc"
  fi
  # Its release report (results/<testid>/report.html), by this checkout's report.
  node tools/folio-perf.mjs report "$testid" >&2 ||
    echo "perf-gate: the report of $testid failed; its summary.json and k6-report.html are kept" >&2
  echo "$PWD/results/$testid/summary.json"
}

if [ -n "$base_ref" ] && [ -z "${GATE_BASELINE:-}" ]; then
  base_sha=$(git rev-parse --verify --quiet "$base_ref^{commit}") ||
    die "GATE_BASE_REF=$base_ref is not a commit of this clone" "fetch it (actions/checkout with fetch-depth: 0) or unset GATE_BASE_REF"
  base_dir=$FP_STACK_DIR/gate-base
  git worktree remove --force "$base_dir" >/dev/null 2>&1
  rm -rf "$base_dir"
  git worktree add --detach "$base_dir" "$base_sha" >/dev/null 2>&1 ||
    die "could not check out $base_ref into $base_dir" "git worktree prune, then run again"
  # Nothing is left checked out, whatever happens next.
  trap 'git worktree remove --force "$base_dir" >/dev/null 2>&1' EXIT
  [ -f "$base_dir/tools/folio-perf.mjs" ] || [ -x "$base_dir/tools/run.sh" ] || die "$base_ref has no tools/folio-perf.mjs" "use a base commit of folio-perf"
  echo "==> perf-gate: baseline runs by $base_ref ($(git rev-parse --short "$base_sha")), candidate by this checkout ($(git rev-parse --short HEAD))" >&2
  make -C "$base_dir" --no-print-directory k6 minifolio >&2 || die "the base $base_ref does not build" "see the make output above"
fi

baseline=${GATE_BASELINE:-}
if [ -z "$baseline" ]; then
  # The candidate in the middle: half the baseline runs (at least one) before it, the rest after.
  before=$(((runs + 1) / 2)) summaries=()
  for i in $(seq 1 "$before"); do summaries+=("$(gate_run "baseline$i" fast "$base_dir")") || exit $?; done
  cand=$(gate_run candidate "$candidate") || exit $?
  for i in $(seq $((before + 1)) "$runs"); do summaries+=("$(gate_run "baseline$i" fast "$base_dir")") || exit $?; done
  baseline=results/gate-baseline-$stamp.json
  node tools/folio-perf.mjs baseline "${summaries[@]}" --out "$baseline" || exit 1
else
  cand=$(gate_run candidate "$candidate") || exit $?
fi
cand_id=$(basename "$(dirname "$cand")")
control_args=()
[ "$control" = none ] || control_args=(--control "$control")
node tools/folio-perf.mjs verdict "$cand_id" --baseline "$baseline" --alpha "$alpha" ${control_args[@]+"${control_args[@]}"}

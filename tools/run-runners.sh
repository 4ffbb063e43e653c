#!/usr/bin/env bash
# One run split over N local k6 processes (`make run RUNNERS=N`), the way the k6-operator splits a
# TestRun with parallelism N over N pods: runner i (1..N) runs execution segment (i-1)/N:i/N of
# the sequence 0,1/N,...,1 of the same plan, with the same TESTID and the tag instance=i. k6 scales
# every scenario's VUs to the segment, so the runners together run the plan's VUs once; each
# runner's test data is its own (lib/segments.js).
#
# Each runner judges its thresholds on its own samples only, so its exit code 99 decides nothing
# here: once all runners have ended, `folio-perf verdict` judges thresholds.json over the union of
# their samples in InfluxDB and its code (0 or 99) is the run's. Any other runner code (105
# interrupted, 107 init, 108 setup) is the run's, without a verdict. The runners' summaries are then
# merged into results/<testid>/summary.json (tools/verdict/merge-summary.mjs) and their sample-loss
# files into sample-loss.json, which tools/run.sh reads as for one process.
#
# Called by tools/run.sh with the k6 environment set (TESTID, K6_ENV, FOLIO_*, ...):
#   tools/run-runners.sh N <results dir> <influx url> <script> [k6 run arguments...]
set -uo pipefail
cd "$(dirname "$0")/.."
n=$1 out=$2 influx=$3 script=$4
shift 4

seq_parts=0
for ((i = 1; i < n; i++)); do seq_parts+=",$i/$n"; done
seq_parts+=",1"
end() { if [ "$1" -eq 0 ]; then echo 0; elif [ "$1" -eq "$n" ]; then echo 1; else echo "$1/$n"; fi; }

# Ctrl-C reaches every k6 (same process group): each runs its teardown; this script waits for all.
got_int=0
trap 'got_int=1' INT
pids=()
for ((i = 1; i <= n; i++)); do
  dir=$out/runners/$i
  mkdir -p "$dir"
  rm -f "$dir/sample-loss.json"
  seg="$(end $((i - 1))):$(end "$i")"
  echo "==> runner $i of $n: execution segment $seg (sequence $seq_parts), tag instance=$i, log $dir/k6.log"
  INSTANCE=$i K6_INFLUXDB_LOSS_FILE="$dir/sample-loss.json" K6_WEB_DASHBOARD_EXPORT="$dir/k6-report.html" \
    bin/k6 run --quiet --execution-segment "$seg" --execution-segment-sequence "$seq_parts" "$@" "$script" >"$dir/k6.log" 2>&1 &
  pids+=($!)
done

rc=0
for ((i = 1; i <= n; i++)); do
  while :; do
    got_int=0 code=0
    wait "${pids[$((i - 1))]}" || code=$?
    # 130 with the trap fired: the Ctrl-C interrupted wait, not the runner; bash keeps a finished
    # runner's status, so waiting again gives its own code.
    { [ "$code" -eq 130 ] && [ "$got_int" -eq 1 ]; } || break
  done
  case $code in
    0) echo "==> runner $i: k6 passed its own thresholds (exit 0)" ;;
    99) echo "==> runner $i: k6 exit 99 on its own samples only; the verdict over all runners decides" ;;
    *)
      echo "==> runner $i: k6 exited with $code; last lines of $out/runners/$i/k6.log:"
      tail -n 5 "$out/runners/$i/k6.log" | sed 's/^/    | /'
      [ "$rc" -eq 0 ] && rc=$code
      ;;
  esac
done
trap - INT

# Sample loss of the run: the runners' counts added up, with how many runners wrote one of the n
# (tools/run.sh judges it as for one process, and fewer files than runners as an unknown loss).
node -e '
  const fs = require("fs");
  const files = process.argv.slice(3).filter((f) => fs.existsSync(f));
  const t = { samples: 0, written: 0, dropped: 0, reasons: {}, runners: files.length, runnersExpected: Number(process.argv[2]) };
  for (const f of files) {
    const l = JSON.parse(fs.readFileSync(f, "utf8"));
    t.samples += l.samples || 0; t.written += l.written || 0; t.dropped += l.dropped || 0;
    for (const [k, v] of Object.entries(l.reasons || {})) t.reasons[k] = (t.reasons[k] || 0) + v;
  }
  t.share = t.samples ? t.dropped / t.samples : 0;
  fs.writeFileSync(process.argv[1], JSON.stringify(t, null, 2) + "\n");
' "$out/sample-loss.json" "$n" "$out"/runners/*/sample-loss.json || echo "==> samples: the runners' sample-loss files could not be added up"

node tools/verdict/merge-summary.mjs "$TESTID" --influx "$influx" --runners "$n" ||
  echo "==> summary: the runners' summaries could not be merged; each runner's is in $out/runners/<i>/summary.json"

if [ "$rc" -ne 0 ]; then
  echo "==> no verdict: a runner did not finish its run (exit $rc)"
  exit "$rc"
fi
echo "==> verdict over all $n runners' samples in InfluxDB (testid $TESTID):"
args=(verdict "$TESTID" --influx "$influx" --thresholds "${THRESHOLDS:-thresholds.json}")
[ -n "${BASELINE:-}" ] && args+=(--baseline "$BASELINE")
node tools/folio-perf.mjs "${args[@]}"

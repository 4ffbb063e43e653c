#!/usr/bin/env bash
# `make bench-k6`: what k6 itself costs with folio-perf's CICO scripts, measured
# on a real run: BENCH_VUS VUs (200) without think time against minifolio `fast`
# for BENCH_DURATION, samples streamed to InfluxDB as in every run. Reports k6's
# CPU seconds per 1,000 transactions, % of one core per 100 transactions/s, and
# peak RSS per VU (GNU time's maximum resident set). Targets:
# <= 1 MB RSS per VU and <= 5 % of one core per 100 transactions/s.
# A benchmark, not a test: the figures depend on the machine and its load.
set -euo pipefail
# shellcheck source=tools/local-env.sh
. "$(dirname "$0")/local-env.sh" # this machine's stack only, whatever the shell exports
cd "$(dirname "$0")/.."
make --no-print-directory stack-up k6 minifolio
VUS=${BENCH_VUS:-200}
DURATION=${BENCH_DURATION:-60s}
# shellcheck source=tools/defaults.sh
. tools/defaults.sh
export FOLIO_PASSWORD=${FOLIO_PASSWORD:-$FP_ADMIN_PASSWORD}
# The seeded operator gets the password k6 logs in with (as tools/run.sh does).
export MINIFOLIO_ADMIN_PASSWORD=$FOLIO_PASSWORD
MINIFOLIO_DB=$(fp_minifolio_db) # password URL-encoded
export MINIFOLIO_DB
run_dir=$FP_STACK_DIR/minifolio

bin/minifolio down --run-dir "$run_dir" >/dev/null
bin/minifolio up --run-dir "$run_dir" --port "$FP_MINIFOLIO_PORT" --profile fast >/dev/null
# Its own tenant, with enough items that 200 VUs each get a pool of their own.
tenant=k6bench
bin/minifolio seed --tenant "$tenant" --items 20000 --users 2000 --loans 500 --quiet
bin/minifolio reset --tenant "$tenant" >/dev/null

testid=$(fp_new_testid bench-k6)
mkdir -p "results/$testid"
echo "==> bench-k6: $VUS VUs, no think time, $DURATION, minifolio fast, testid $testid"
/usr/bin/time -f '%U %S %M' -o "results/$testid/time.txt" env K6_ENV=local TESTID="$testid" RELEASE=fast \
  FOLIO_TENANT="$tenant" PROFILE=smoke VUS="$VUS" DURATION="$DURATION" THINK=none FOLIO_URL="http://127.0.0.1:$FP_MINIFOLIO_PORT" \
  FOLIO_DB_PORT="$FP_PG_PORT" K6_NO_USAGE_REPORT=true K6_AUTO_EXTENSION_RESOLUTION=false \
  bin/k6 run --quiet --address= -o "influxdb-lp=http://127.0.0.1:$FP_INFLUX_PORT/k6" scripts/check-in-check-out.js \
  >"results/$testid/k6.log" 2>&1 || true

# k6's floor on this machine: the same VUs, each sending the cheapest request there is (the
# gateway's health answer) with no check, no custom metric and no output. Whatever a CICO script
# does per request comes on top of this. Twice: as fast as it goes (CPU per request), and paced
# to the CICO run's request rate (memory: k6's RSS grows with the garbage made between two
# collections, so a floor sending 10 times as many requests would overstate k6's share).
FLOOR_SECONDS=${BENCH_FLOOR_SECONDS:-20}
floor() { # <label> <sleep seconds>
  /usr/bin/time -f '%U %S %M' -o "results/$testid/floor-$1-time.txt" env K6_NO_USAGE_REPORT=true K6_AUTO_EXTENSION_RESOLUTION=false \
    FOLIO_URL="http://127.0.0.1:$FP_MINIFOLIO_PORT" FOLIO_TENANT="$tenant" FOLIO_TOKEN= FLOOR_PATH=/admin/health FLOOR_SLEEP="$2" \
    FLOOR_VUS="$VUS" FLOOR_DURATION="${FLOOR_SECONDS}s" FLOOR_OUT="results/$testid/floor-$1.json" \
    bin/k6 run --quiet --address= minifolio/bench-floor.js >"results/$testid/floor-$1.log" 2>&1 ||
    { echo "bench-k6: the floor run failed. Fix: read results/$testid/floor-$1.log" >&2; exit 1; }
}
[ -s "results/$testid/summary.json" ] || { echo "bench-k6: the CICO run wrote no summary. Fix: read results/$testid/k6.log" >&2; exit 1; }
# Seconds between two requests of one VU in the CICO run's load phase: VUs / (requests per
# second), counting the transactions' own requests (the per-API sub-metrics, not setup's and
# teardown's) over the step's duration, not the whole run's.
# Prints "<requests> <requests per second>".
cico_requests() {
  node -e '
    const s = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
    const m = s.k6.metrics;
    const reqs = Object.entries(m).filter(([k]) => k.startsWith("http_req_duration{name:") && !k.includes(",vus:")).reduce((a, [, v]) => a + v.values.count, 0);
    const seconds = parseFloat(s.meta.stepDuration);
    if (!(reqs > 0 && seconds > 0)) process.exit(1);
    console.log(reqs, (reqs / seconds).toFixed(1));' "results/$testid/summary.json" 2>/dev/null
}
counts=$(cico_requests) || { echo "bench-k6: the CICO run's summary has no request counts. Fix: read results/$testid/k6.log" >&2; exit 1; }
read -r reqs rate <<<"$counts"
pace=$(node -e 'console.log((Number(process.argv[1]) / Number(process.argv[2])).toFixed(4))' "$VUS" "$rate")
echo "==> bench-k6 floor: $VUS VUs, ${FLOOR_SECONDS}s of GET /admin/health (minifolio/bench-floor.js), unpaced, then one request per ${pace}s per VU"
floor max 0
floor paced "$pace"

# GNU time puts "Command exited with non-zero status N" first when k6 fails a threshold.
read -r user sys maxkb < <(tail -n1 "results/$testid/time.txt")
read -r fuser fsys fmaxkb < <(tail -n1 "results/$testid/floor-max-time.txt")
read -r puser psys pmaxkb < <(tail -n1 "results/$testid/floor-paced-time.txt")
FLOOR_SECONDS=$FLOOR_SECONDS CICO_REQUESTS=$reqs CICO_RATE=$rate node --input-type=module - "results/$testid/summary.json" "$user" "$sys" "$maxkb" "$VUS" \
  "results/$testid/floor-max.json" "$fuser" "$fsys" "$fmaxkb" "results/$testid/floor-paced.json" "$puser" "$psys" "$pmaxkb" <<'JS'
import { readFileSync } from 'node:fs';
const [file, user, sys, maxkb, vus, floorFile, fuser, fsys, fmaxkb, pacedFile, puser, psys, pmaxkb] = process.argv.slice(2);
const s = JSON.parse(readFileSync(file, 'utf8'));
const m = s.k6.metrics;
const tx = ['check-in', 'check-out'].map((t) => m[`transaction_duration{transaction:${t}}`]?.values.count ?? 0).reduce((a, b) => a + b, 0);
const seconds = (Date.parse(s.meta.finishedAt) - Date.parse(s.meta.startedAt)) / 1000;
const cpu = Number(user) + Number(sys);
const txPerS = tx / seconds;
const corePctPer100 = txPerS > 0 ? ((cpu / seconds) * 100) / (txPerS / 100) : NaN;
const rssPerVuMB = Number(maxkb) / 1024 / Number(vus);
console.log(`transactions: ${tx} in ${seconds.toFixed(0)} s (${txPerS.toFixed(1)}/s, limited by the target)`);
console.log(`k6 CPU: ${cpu.toFixed(1)} s = ${(cpu / tx * 1000).toFixed(2)} CPU s per 1,000 transactions = ${corePctPer100.toFixed(2)} % of one core per 100 transactions/s (target <= 5 %)`);
console.log(`k6 peak RSS: ${(Number(maxkb) / 1024).toFixed(0)} MB = ${rssPerVuMB.toFixed(2)} MB per VU at ${vus} VUs (target <= 1 MB)`);
// The transactions' own requests (counted above from the per-API sub-metrics; setup and teardown
// are not among them).
const reqs = Number(process.env.CICO_REQUESTS);
const perTx = reqs / tx;
const floorReqs = JSON.parse(readFileSync(floorFile, 'utf8')).requests;
const floorUs = ((Number(fuser) + Number(fsys)) / floorReqs) * 1e6;
// % of one core per 100 tx/s = CPU seconds per transaction x 100 (100 tx/s) / 1 core x 100 %.
const floorPct = (floorUs * perTx) / 1e6 * 100 * 100;
const pacedReqs = JSON.parse(readFileSync(pacedFile, 'utf8')).requests;
const cicoRate = Number(process.env.CICO_RATE);
const floorSeconds = Number(process.env.FLOOR_SECONDS);
console.log(`k6 floor (bare GET, no check, no output): ${floorUs.toFixed(0)} us CPU per request, ${(Number(fmaxkb) / 1024 / Number(vus)).toFixed(2)} MB RSS per VU at ${(floorReqs / floorSeconds).toFixed(0)} requests/s`);
console.log(`  at ${perTx.toFixed(1)} requests per transaction that floor alone is ${floorPct.toFixed(1)} % of one core per 100 transactions/s; these scripts cost ${(((cpu / tx) * 1e6) / perTx).toFixed(0)} us per request`);
console.log(`  paced to the CICO run's ${cicoRate.toFixed(0)} requests/s (reached ${(pacedReqs / floorSeconds).toFixed(0)}/s): ${(Number(pmaxkb) / 1024 / Number(vus)).toFixed(2)} MB RSS per VU; these scripts add ${(rssPerVuMB - Number(pmaxkb) / 1024 / Number(vus)).toFixed(2)} MB per VU to it`);
JS

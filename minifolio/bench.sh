#!/usr/bin/env bash
# `make bench-minifolio`: CICO capacity of minifolio on this machine (issue 3,
# "Performance"). Profile fast, BENCH_VUS VUs without think time for
# BENCH_DURATION through the real gateway and module processes, then
# PostgreSQL's own ceiling on the same server (pgbench, TPC-B-like, same client
# count) for the ratio. Target: >= 200 CICO transactions/s, check-out p95 < 50 ms.
#
# It runs its own minifolio (port BENCH_PORT, run dir .stack/minifolio-bench)
# on its own tenant (BENCH_TENANT), so the demo stack and its fs09000000 are
# never touched, and stops it at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
vus=${BENCH_VUS:-20} duration=${BENCH_DURATION:-60s} pgsecs=${BENCH_PGBENCH_SECONDS:-30}
port=${BENCH_PORT:-9730} tenant=${BENCH_TENANT:-minifolio_bench}
items=${BENCH_ITEMS:-20000} users=${BENCH_USERS:-2000} loans=${BENCH_LOANS:-2000}
pg_port=${FP_PG_PORT:-55432}
export FOLIO_DB_PASSWORD=${FOLIO_DB_PASSWORD:-folio}
export MINIFOLIO_ADMIN_PASSWORD=${FOLIO_PASSWORD:-admin} FOLIO_PASSWORD=${FOLIO_PASSWORD:-admin}
# The DB URL reaches minifolio through its environment, never its command line.
export MINIFOLIO_DB="postgres://folio:$FOLIO_DB_PASSWORD@127.0.0.1:$pg_port/folio?sslmode=disable"
run_dir=.stack/minifolio-bench
testid=bench-minifolio-$(date -u +%Y%m%dT%H%M%SZ)
log=.stack/logs/$testid.log
mkdir -p .stack/logs results

bin/minifolio down --run-dir "$run_dir" >/dev/null
trap 'bin/minifolio down --run-dir "$run_dir" >/dev/null' EXIT
echo "==> minifolio: profile fast on 127.0.0.1:$port, tenant $tenant ($items items, $users users, $loans open loans)"
bin/minifolio up --run-dir "$run_dir" --port "$port" --profile fast >/dev/null
bin/minifolio seed --tenant "$tenant" --items "$items" --users "$users" --loans "$loans" --quiet >/dev/null
bin/minifolio reset --tenant "$tenant" >/dev/null

echo "==> k6: $vus VUs, no think time, $duration (log: $log)"
mkdir -p "results/$testid" # handleSummary writes summary.json there; k6 cannot create directories
# Thresholds may fail at this load (k6 exits 99); the figures are still valid.
K6_AUTO_EXTENSION_RESOLUTION=false K6_NO_USAGE_REPORT=true K6_ENV=local TESTID=$testid RELEASE=fast \
  PROFILE=smoke VUS=$vus DURATION=$duration THINK=none \
  FOLIO_URL="http://127.0.0.1:$port" FOLIO_TENANT=$tenant FOLIO_DB_PORT=$pg_port \
  bin/k6 run --quiet --address= scripts/check-in-check-out.js >"$log" 2>&1 || true
summary=results/$testid/summary.json
[ -f "$summary" ] || { echo "bench-minifolio: no $summary. Fix: read $log" >&2; exit 1; }

echo "==> pgbench: $vus clients, ${pgsecs}s on the same PostgreSQL (database pgbench)"
pgurl="postgres://folio:$FOLIO_DB_PASSWORD@127.0.0.1:$pg_port"
if ! psql "$pgurl/folio" -qAtc "SELECT 1 FROM pg_database WHERE datname = 'pgbench'" | grep -q 1; then
  psql "$pgurl/folio" -qc "CREATE DATABASE pgbench"
fi
pgbench -i -q -s 10 "$pgurl/pgbench" >/dev/null 2>&1
tps=$(pgbench -n -T "$pgsecs" -c "$vus" -j 2 "$pgurl/pgbench" 2>/dev/null | sed -n 's/^tps = \([0-9.]*\).*/\1/p')

python3 - "$summary" "${tps:-0}" "$(nproc)" "$(cut -d' ' -f1-3 /proc/loadavg)" <<'PY'
import json, re, sys
s = json.load(open(sys.argv[1])); tps = float(sys.argv[2]); cores, load = sys.argv[3], sys.argv[4]
m = s["meta"]; row = s["tables"]["responseTimes"][-1]
unit = {"ms": .001, "s": 1, "m": 60, "h": 3600}
secs = sum(float(n) * unit[u] for n, u in re.findall(r"([\d.]+)(ms|s|m|h)", m["stepDuration"]))
tx = (row["check-out"]["count"] + row["check-in"]["count"]) / secs
print(f"{m['testid']} ({m['startedAt']}, {cores} cores, load average {load}): {row['vus']} VUs, no think time, profile fast, {m['stepDuration']}")
print(f"  CICO transactions/s    {tx:8.1f}   (target >= 200)")
print(f"  check-out p95          {row['check-out']['p95'] * 1000:8.1f} ms (target < 50)")
print(f"  check-in  p95          {row['check-in']['p95'] * 1000:8.1f} ms")
print(f"  pgbench TPS            {tps:8.1f}   (TPC-B-like, {row['vus']} clients, same server)")
if tps:
    print(f"  CICO tx per pgbench tx {tx / tps:8.3f}")
PY

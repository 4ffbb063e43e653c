#!/usr/bin/env bash
# `make bench-minifolio`: CICO capacity of minifolio on this machine (issue 3,
# "Performance"). Profile fast, BENCH_VUS VUs without think time for
# BENCH_DURATION through the real gateway and module processes (tools/run.sh:
# restart, seed if empty, reset, k6), then PostgreSQL's own ceiling on the same
# server (pgbench, TPC-B-like, same client count) for the ratio.
# Target: >= 200 CICO transactions/s with check-out p95 < 50 ms.
set -euo pipefail
cd "$(dirname "$0")/.."
vus=${BENCH_VUS:-20} duration=${BENCH_DURATION:-60s} pgsecs=${BENCH_PGBENCH_SECONDS:-30}
testid=bench-minifolio-$(date -u +%Y%m%dT%H%M%SZ)
log=.stack/logs/$testid.log
mkdir -p .stack/logs

echo "==> k6: $vus VUs, no think time, $duration, profile fast (log: $log)"
# Thresholds may fail at this load (k6 exits 99); the figures are still valid.
PROFILE=smoke VUS=$vus DURATION=$duration MINIFOLIO_PROFILE=fast TESTID=$testid tools/run.sh >"$log" 2>&1 || true
summary=results/$testid/summary.json
[ -f "$summary" ] || { echo "bench-minifolio: no $summary. Fix: read $log" >&2; exit 1; }

echo "==> pgbench: $vus clients, ${pgsecs}s on the same PostgreSQL (database pgbench)"
pgurl="postgres://folio:${FOLIO_DB_PASSWORD:-folio}@127.0.0.1:${FP_PG_PORT:-55432}"
if ! psql "$pgurl/folio" -qAtc "SELECT 1 FROM pg_database WHERE datname = 'pgbench'" | grep -q 1; then
  psql "$pgurl/folio" -qc "CREATE DATABASE pgbench"
fi
pgbench -i -q -s 10 "$pgurl/pgbench" >/dev/null 2>&1
tps=$(pgbench -n -T "$pgsecs" -c "$vus" -j 2 "$pgurl/pgbench" 2>/dev/null | sed -n 's/^tps = \([0-9.]*\).*/\1/p')

python3 - "$summary" "${tps:-0}" "$(nproc)" <<'PY'
import json, re, sys
s = json.load(open(sys.argv[1])); tps = float(sys.argv[2]); cores = sys.argv[3]
m = s["meta"]; row = s["tables"]["responseTimes"][-1]
unit = {"ms": .001, "s": 1, "m": 60, "h": 3600}
secs = sum(float(n) * unit[u] for n, u in re.findall(r"([\d.]+)(ms|s|m|h)", m["stepDuration"]))
tx = (row["check-out"]["count"] + row["check-in"]["count"]) / secs
print(f"{m['testid']} ({m['startedAt']}, {cores} cores): {row['vus']} VUs, no think time, profile fast, {m['stepDuration']}")
print(f"  CICO transactions/s    {tx:8.1f}   (target >= 200)")
print(f"  check-out p95          {row['check-out']['p95'] * 1000:8.1f} ms (target < 50)")
print(f"  check-in  p95          {row['check-in']['p95'] * 1000:8.1f} ms")
print(f"  pgbench TPS            {tps:8.1f}   (TPC-B-like, {row['vus']} clients, same server)")
if tps:
    print(f"  CICO tx per pgbench tx {tx / tps:8.3f}")
PY

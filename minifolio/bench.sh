#!/usr/bin/env bash
# `make bench-minifolio`: CICO capacity of minifolio on this machine
# (docs/benchmarks.md). Profile fast, BENCH_VUS VUs without think time for
# BENCH_DURATION through the real gateway and module processes, then
# PostgreSQL's own ceiling on the same server (pgbench, TPC-B-like, same client
# count) for the ratio. Target: >= 200 CICO transactions/s, check-out p95 < 50 ms.
#
# It also says where the CPU goes (k6, gateway + modules, PostgreSQL: CPU ms per
# transaction, read from /proc) and measures the floor of this architecture
# (bench-floor.js): k6's cost of the cheapest request, and the server's cost of
# the cheapest storage call through the gateway. With the gateway requests a
# transaction makes, that floor bounds what any CICO implementation with
# separate module processes can reach on these cores.
#
# It runs its own minifolio (port BENCH_PORT, run dir .stack/minifolio-bench)
# on its own tenant (BENCH_TENANT), so the demo stack and its fs09000000 are
# never touched, and stops it at the end.
set -euo pipefail
# shellcheck source=tools/local-env.sh
. "$(dirname "$0")/../tools/local-env.sh" # this machine's stack only, whatever the shell exports
cd "$(dirname "$0")/.."
vus=${BENCH_VUS:-20} duration=${BENCH_DURATION:-60s} pgsecs=${BENCH_PGBENCH_SECONDS:-30}
floorsecs=${BENCH_FLOOR_SECONDS:-10}
port=${BENCH_PORT:-9730} tenant=${BENCH_TENANT:-minifolio_bench}
items=${BENCH_ITEMS:-20000} users=${BENCH_USERS:-2000} loans=${BENCH_LOANS:-2000}
# shellcheck source=tools/defaults.sh
. tools/defaults.sh
make --no-print-directory stack-up k6 minifolio
pg_port=$FP_PG_PORT stack_dir=$FP_STACK_DIR
diag=127.0.0.1:${BENCH_DIAG_PORT:-9799} # the gateway's expvar/pprof port (request counter)
export MINIFOLIO_ADMIN_PASSWORD=${FOLIO_PASSWORD:-$FP_ADMIN_PASSWORD} FOLIO_PASSWORD=${FOLIO_PASSWORD:-$FP_ADMIN_PASSWORD}
# The DB URL reaches minifolio through its environment, never its command line.
MINIFOLIO_DB=$(fp_minifolio_db) # password URL-encoded
export MINIFOLIO_DB
run_dir=$PWD/.stack/minifolio-bench
testid=$(fp_new_testid bench-minifolio)
log=.stack/logs/$testid.log
mkdir -p .stack/logs results "results/$testid"

# CPU ticks (1/100 s) of one process from /proc/<pid>/stat: utime + stime, and
# with "children" also what its exited children used (PostgreSQL's postmaster
# reaps the backends of closed connections).
proc_ticks() {
  local stat
  stat=$(cat "/proc/$1/stat" 2>/dev/null) || { echo 0; return; }
  local children=${2:-}
  # shellcheck disable=SC2086 # split into the stat fields on purpose
  set -- ${stat##*) }
  if [ -n "$children" ]; then echo $((${12} + ${13} + ${14} + ${15})); else echo $((${12} + ${13})); fi
}
# "<minifolio ticks> <postgres ticks>": this bench's gateway and modules, and
# the whole PostgreSQL server (postmaster, backends, autovacuum).
server_ticks() {
  local mf=0 pg=0 pid pm
  for pid in $(pgrep -f -- "minifolio serve .*--run-dir $run_dir( |$)"); do mf=$((mf + $(proc_ticks "$pid"))); done
  pm=$(cat "$stack_dir/run/postgres.pid" 2>/dev/null || true)
  if [ -n "$pm" ]; then
    pg=$(proc_ticks "$pm" children)
    for pid in $(pgrep -P "$pm"); do pg=$((pg + $(proc_ticks "$pid"))); done
  fi
  echo "$mf $pg"
}
proxied() { curl -sf "http://$diag/debug/vars" | python3 -c 'import json,sys; print(json.load(sys.stdin)["okapi_proxied_requests"])'; }
k6env() { env K6_AUTO_EXTENSION_RESOLUTION=false K6_NO_USAGE_REPORT=true FOLIO_URL="http://127.0.0.1:$port" FOLIO_TENANT="$tenant" "$@"; }

bin/minifolio down --run-dir "$run_dir" >/dev/null
trap 'bin/minifolio down --run-dir "$run_dir" >/dev/null' EXIT
echo "==> minifolio: profile fast on 127.0.0.1:$port, tenant $tenant ($items items, $users users, $loans open loans)"
MINIFOLIO_PPROF_OKAPI=$diag bin/minifolio up --run-dir "$run_dir" --port "$port" --profile fast >/dev/null
bin/minifolio seed --tenant "$tenant" --items "$items" --users "$users" --loans "$loans" --quiet >/dev/null
bin/minifolio reset --tenant "$tenant" >/dev/null

echo "==> k6: $vus VUs, no think time, $duration (log: $log)"
# Thresholds may fail at this load (k6 exits 99); the figures are still valid.
# --no-teardown: its check-ins would count as CPU but not as transactions (the
# next bench resets the tenant anyway).
read -r mf0 pg0 < <(server_ticks); gw0=$(proxied)
k6env FOLIO_ENV=local TESTID="$testid" RELEASE=fast PROFILE=smoke VUS="$vus" DURATION="$duration" THINK=none FOLIO_DB_PORT="$pg_port" \
  /usr/bin/time -f '%U %S' -o "results/$testid/k6-time.txt" bin/k6 run --quiet --address= --no-teardown scripts/check-in-check-out.js >"$log" 2>&1 || true
read -r mf1 pg1 < <(server_ticks); gw1=$(proxied)
read -r k6u k6s < <(tail -n1 "results/$testid/k6-time.txt")
summary=results/$testid/summary.json
[ -f "$summary" ] || { echo "bench-minifolio: no $summary. Fix: read $log" >&2; exit 1; }

echo "==> pgbench: $vus clients, ${pgsecs}s on the same PostgreSQL (database pgbench)"
# The password reaches psql and pgbench through PGPASSWORD, so ps never shows it.
export PGPASSWORD=$FOLIO_DB_PASSWORD
pgurl="postgres://folio@127.0.0.1:$pg_port"
if ! psql "$pgurl/folio" -qAtc "SELECT 1 FROM pg_database WHERE datname = 'pgbench'" | grep -q 1; then
  psql "$pgurl/folio" -qc "CREATE DATABASE pgbench"
fi
pgbench -i -q -s 10 "$pgurl/pgbench" >/dev/null 2>&1
tps=$(pgbench -n -T "$pgsecs" -c "$vus" -j 2 "$pgurl/pgbench" 2>/dev/null | sed -n 's/^tps = \([0-9.]*\).*/\1/p')

# The floor: k6 alone (the gateway's health answer), then the cheapest storage
# call through the gateway. The token travels in the environment, not argv.
echo "==> floor: $vus VUs, ${floorsecs}s each: GET /admin/health, GET /groups?limit=1"
FOLIO_TOKEN=$(curl -sf -D - -o /dev/null -H "X-Okapi-Tenant: $tenant" -H 'Content-Type: application/json' --data-binary @- \
  "http://127.0.0.1:$port/authn/login" <<<"{\"username\":\"$FP_USER\",\"password\":\"$FOLIO_PASSWORD\"}" |
  sed -n 's/^x-okapi-token: *//Ip' | tr -d '\r')
[ -n "$FOLIO_TOKEN" ] || { echo "bench-minifolio: cannot log in to tenant $tenant for the floor. Fix: read $log" >&2; exit 1; }
export FOLIO_TOKEN
floor() { # <path> <name>: prints "<requests> <k6 ticks> <minifolio ticks> <postgres ticks>"
  local out="results/$testid/floor-$2.json" a b c d u s
  read -r a b < <(server_ticks)
  k6env FLOOR_PATH="$1" FLOOR_VUS="$vus" FLOOR_DURATION="${floorsecs}s" FLOOR_OUT="$out" \
    /usr/bin/time -f '%U %S' -o "results/$testid/floor-$2-time.txt" bin/k6 run --quiet --address= minifolio/bench-floor.js >>"$log" 2>&1 ||
    { echo "bench-minifolio: the floor run $1 failed. Fix: read $log" >&2; exit 1; }
  read -r c d < <(server_ticks)
  read -r u s < <(tail -n1 "results/$testid/floor-$2-time.txt")
  echo "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["requests"])' "$out") $(python3 -c "print(round(($u + $s) * 100))") $((c - a)) $((d - b))"
}
health=$(floor /admin/health health)
storage=$(floor '/groups?limit=1' storage)

python3 - "$summary" "${tps:-0}" "$(nproc)" "$(cut -d' ' -f1-3 /proc/loadavg)" \
  "$k6u $k6s $((mf1 - mf0)) $((pg1 - pg0)) $((gw1 - gw0))" "$health" "$storage" <<'PY'
import json, re, sys
s = json.load(open(sys.argv[1])); tps = float(sys.argv[2]); cores, load = int(sys.argv[3]), sys.argv[4]
k6u, k6s, mf, pg, gw = map(float, sys.argv[5].split())
m = s["meta"]; row = s["tables"]["responseTimes"][-1]
unit = {"ms": .001, "s": 1, "m": 60, "h": 3600}
secs = sum(float(n) * unit[u] for n, u in re.findall(r"([\d.]+)(ms|s|m|h)", m["stepDuration"]))
n = row["check-out"]["count"] + row["check-in"]["count"]
tx = n / secs
# The transactions' own requests: the per-API sub-metrics (setup's are not among them).
ui = sum(v["values"]["count"] for k, v in s["k6"]["metrics"].items()
         if k.startswith("http_req_duration{name:") and ",vus:" not in k) / n
print(f"{m['testid']} ({m['startedAt']}, {cores} cores, load average {load}): {row['vus']} VUs, no think time, profile fast, {m['stepDuration']}")
print(f"  CICO transactions/s    {tx:8.1f}   (target >= 200)")
print(f"  check-out p95          {row['check-out']['p95'] * 1000:8.1f} ms (target < 50)")
print(f"  check-in  p95          {row['check-in']['p95'] * 1000:8.1f} ms")
print(f"  pgbench TPS            {tps:8.1f}   (TPC-B-like, {row['vus']} clients, same server)")
if tps:
    print(f"  CICO tx per pgbench tx {tx / tps:8.3f}")
print(f"  requests per tx        {ui:8.1f} from k6, {gw / n:.1f} through the gateway (UI calls + module-to-module calls)")
k6 = (k6u + k6s) * 1000 / n; mfms = mf * 10 / n; pgms = pg * 10 / n
print(f"  CPU ms per tx          {k6 + mfms + pgms:8.2f} = k6 {k6:.2f} + gateway and modules {mfms:.2f} + PostgreSQL {pgms:.2f}")
def per(req):
    r, k, a, b = map(float, req.split())
    return k * 1e4 / r, (a + b) * 1e4 / r   # microseconds of CPU per request
k6floor, _ = per(sys.argv[6]); _, srvfloor = per(sys.argv[7])
floor = (k6floor * ui + srvfloor * gw / n) / 1000
print(f"  floor per request      {k6floor:8.0f} us k6 (GET /admin/health), {srvfloor:.0f} us gateway+module+PostgreSQL (GET /groups?limit=1)")
print(f"  floor per tx           {floor:8.2f} ms CPU for the same request counts without any business logic:")
print(f"                         at most {cores * 1000 / floor:.0f} tx/s on {cores} cores; measured {tx:.0f} tx/s is {tx * floor / (cores * 1000) * 100:.0f} % of that bound")
PY

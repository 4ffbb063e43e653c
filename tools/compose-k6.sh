#!/bin/sh
# The entrypoint of docker-compose.yml's k6 service: `docker compose run --rm k6 run <script>` leaves
# the run's summary.json and k6's HTML report in results/<testid>/, as `folio-perf run` does, and
# ends with the report command to type on the host. Any other k6 command (version, inspect, ...)
# goes to k6 unchanged.
#
# k6 cannot create directories, and the test id is made inside the script (lib/testid.js, its one
# home), so the run writes into a fresh directory of its own under results/ (RESULTS_DIR), which is
# renamed after the test id the summary names once k6 has ended. Runs in the image's BusyBox sh.
set -u

if [ "${1:-}" != run ] || [ -n "${RESULTS_DIR:-}" ]; then
  # not a run, or the user chose where the summary goes
  exec k6 "$@"
fi

mkdir -p results || exit 1
# mktemp makes it 0700; the host user reads results/ as any run's
stage=$(mktemp -d results/.k6-run-XXXXXX) && chmod 755 "$stage" || exit 1
export RESULTS_DIR="$stage"
export K6_WEB_DASHBOARD=true K6_WEB_DASHBOARD_PORT=-1 K6_WEB_DASHBOARD_EXPORT="$stage/k6-report.html"
# The machine k6 runs on, for the run's record (lib/record.js MACHINE_ENV; k6 cannot read /proc).
: "${FP_MACHINE_CORES:=$(nproc 2>/dev/null)}"
: "${FP_MACHINE_MEMORY_BYTES:=$(awk '/^MemTotal:/ { printf "%.0f", $2 * 1024 }' /proc/meminfo 2>/dev/null)}"
export FP_MACHINE_CORES FP_MACHINE_MEMORY_BYTES

# The compose stack's own database before and after k6, for the report's Database section
# (tools/compose-db-snapshot.js), as folio-perf run does on its own stack; none when the run is aimed
# at another FOLIO (FOLIO_ENV other than docker, FOLIO_URL, in the environment or as k6's -e).
own_stack=1
if [ "${FOLIO_ENV:-docker}" != docker ] || [ -n "${K6_ENV:-}${FOLIO_URL:-}" ] || [ -z "${FP_STACK_DB:-}" ]; then own_stack=; fi
for a in "$@"; do
  case $a in *FOLIO_ENV=* | *K6_ENV=* | *FOLIO_URL=*) own_stack= ;; esac
done
db_snapshot() { # start|end
  [ -n "$own_stack" ] || return 0
  env -u K6_OUT -u K6_WEB_DASHBOARD -u K6_WEB_DASHBOARD_EXPORT -u RESULTS_DIR \
    k6 run -q -e WHEN="$1" -e OUT="$stage" "$(dirname "$0")/compose-db-snapshot.js" </dev/null || true
}
db_snapshot start

# This script is the container's first process, which `docker compose run` and `docker stop` signal:
# a stop reaches k6 as SIGTERM (k6 then stops as on Ctrl-C: teardown and summary), and the script
# waits for k6 to end before it files what k6 wrote. (A background k6 ignores SIGINT: POSIX sh.)
k6 "$@" &
pid=$!
trap 'kill -TERM "$pid" 2>/dev/null' INT TERM
rc=1
# wait returns early on a signal; a process that ended stays until a wait collects its status
while kill -0 "$pid" 2>/dev/null; do
  wait "$pid"
  rc=$?
done
db_snapshot end

# The run's test id, from the summary's meta (its first "testid"); a run that wrote no summary
# (a bad setting) leaves nothing behind.
testid=$(sed -n 's/^ *"testid": "\([A-Za-z0-9._-]*\)",*$/\1/p' "$stage/summary.json" 2>/dev/null | head -n 1)
if [ -z "$testid" ]; then
  rm -rf "$stage"
  exit "$rc"
fi
out="results/$testid"
# The summary's own record of where it and the HTML report are: their final place.
sed -i "s#$stage/#$out/#g" "$stage/summary.json"
if [ -d "$out" ]; then
  # a run with the same TESTID again: its files replace the previous run's
  mv -f "$stage"/* "$out"/ && rmdir "$stage"
else
  mv "$stage" "$out"
fi
files=$out/summary.json
if [ -f "$out/k6-report.html" ]; then files="$files $out/k6-report.html"; fi
echo "==> results: $files"
echo "==> report (on the host): npx folio-perf report $testid --influx ${FP_HOST_INFLUX_URL:-<the InfluxDB k6 wrote to>}"
echo "    writes $out/report.md and $out/report.html"
exit "$rc"

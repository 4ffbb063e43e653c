#!/usr/bin/env bash
# `make run`: one check-in/check-out run (WORKFLOW=cico, the default) or one
# mod-search run (WORKFLOW=search) on the native stack, start to finish.
#   1. the stack is up (make's prerequisite), minifolio is (re)started with
#      MINIFOLIO_PROFILE, seeded when empty and reset to the pre-test state, as
#      PTF restored its database before every test;
#   2. k6 runs scripts/check-in-check-out.js with PROFILE, streaming every sample
#      to InfluxDB and exporting its HTML report;
#   3. results/<testid>/ holds summary.json and k6-report.html.
# k6's exit code is the run's: 99 when a threshold failed, 105 interrupted, 108
# setup aborted (also: the login probe failed), 96 samples lost (SAMPLE_LOSS).
# `make run` turns any of them into make's own 2; `node tools/folio-perf.mjs run`
# and tools/run.sh itself exit with the code.
#
# FOLIO_URL (or a K6_ENV other than local) points the run at another FOLIO: then
# minifolio is not started, seeded or reset, and the check for what the run left
# checked out (it reads minifolio's database) is skipped; teardown still checks
# in the run's own loans.
#
# Progress: on a terminal k6 shows its progress bar; without one, a line every
# PROGRESS_EVERY seconds (60) with the requests of that interval, read from InfluxDB.
#
# Settings (make variables or environment): PROFILE (smoke), MINIFOLIO_PROFILE
# (fast), RELEASE (label of the system under test; default the minifolio
# profile), DURATION, VUS, THINK, BASELINE, SEED_ITEMS, SEED_USERS, SEED_LOANS,
# SEED_EVENTS_PER_USER (patron-block history, for juniper-patron-blocks),
# TOKEN_TTL (minifolio's access-token lifetime), TESTID, SEED_AUTHORITIES
# (MARC authority records of a new tenant, 2000), SAMPLE_LOSS (fail: a run
# whose samples did not all reach InfluxDB exits 96 when k6 passed; warn: only
# reported), K6_INFLUXDB_RETRY_TIMEOUT (how long a sample may wait for InfluxDB,
# default 60s), RUNNERS (N k6 processes on execution segments of the plan, one
# verdict over all their samples: tools/run-runners.sh). WORKFLOW=search: see the search block below (REINDEX_TENANT,
# REINDEX_API, ... reach k6 unchanged).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD

# shellcheck source=tools/defaults.sh
. tools/defaults.sh
# Another FOLIO than minifolio: FOLIO_URL set by the user, or an env file other than local's.
external=
if [ -n "${FOLIO_URL:-}" ] || { [ -n "${K6_ENV:-}" ] && [ "$K6_ENV" != local ]; }; then external=1; fi
# Inside a test, drill, the demo or the gate (tools/local-env.sh set FP_LOCAL_ONLY=1) a target off
# this machine stops here, with one line, before anything is contacted.
if [ -n "$external" ] && [ "${FP_LOCAL_ONLY:-}" = 1 ]; then
  K6_ENV=${K6_ENV:-local} node tools/login-probe.mjs --target-only || exit 1
fi
PROFILE=${PROFILE:-smoke}
MINIFOLIO_PROFILE=${MINIFOLIO_PROFILE:-fast}
if [ -n "$external" ]; then RELEASE=${RELEASE:-}; else RELEASE=${RELEASE:-$MINIFOLIO_PROFILE}; fi
SEED_ITEMS=${SEED_ITEMS:-20000}
SEED_USERS=${SEED_USERS:-2000}
SEED_LOANS=${SEED_LOANS:-500}
SEED_EVENTS_PER_USER=${SEED_EVENTS_PER_USER:-0}
# MARC authorities for the search workflow's authority templates (ignored by CICO).
SEED_AUTHORITIES=${SEED_AUTHORITIES:-2000}
TOKEN_TTL=${TOKEN_TTL:-10m}
# minifolio's operator password is a local-only default; a real FOLIO's comes from the user.
if [ -z "$external" ]; then
  export FOLIO_PASSWORD=${FOLIO_PASSWORD:-$FP_ADMIN_PASSWORD} MINIFOLIO_ADMIN_PASSWORD=${FOLIO_PASSWORD:-$FP_ADMIN_PASSWORD}
fi
# The DB URL reaches minifolio through its environment, never its command line.
MINIFOLIO_DB=$(fp_minifolio_db)
export MINIFOLIO_DB
run_dir=$FP_STACK_DIR/minifolio
mkdir -p "$FP_STACK_DIR/logs" results

die() { printf 'folio-perf: %s. Fix: %s\n' "$1" "$2" >&2; exit 1; }
WORKFLOW=${WORKFLOW:-cico}
case $WORKFLOW in
  cico) script=scripts/check-in-check-out.js ;;
  search) script=scripts/mod-search.js ;;
  *) die "unknown WORKFLOW '$WORKFLOW'" "use WORKFLOW=cico or WORKFLOW=search" ;;
esac
[ -f "$script" ] || die "$script is missing" "restore it from git"
SAMPLE_LOSS=${SAMPLE_LOSS:-fail}
# RUNNERS=N splits the run over N k6 processes (tools/run-runners.sh); 1 is one process, as ever.
RUNNERS=${RUNNERS:-1}
{ [[ "$RUNNERS" =~ ^[1-9][0-9]?$ ]] && [ "$RUNNERS" -le 16 ]; } || die "RUNNERS '$RUNNERS' is not a number of k6 processes from 1 to 16" "use e.g. RUNNERS=2"
[ "$RUNNERS" -eq 1 ] || [ -z "${INSTANCE:-}" ] || die "INSTANCE is set by RUNNERS=N for each runner" "unset INSTANCE"
case $SAMPLE_LOSS in fail | warn) ;; *) die "SAMPLE_LOSS '$SAMPLE_LOSS' is neither fail nor warn" "use SAMPLE_LOSS=fail (default) or warn" ;; esac
[ -f "minifolio/profiles/$MINIFOLIO_PROFILE.json" ] || die "unknown MINIFOLIO_PROFILE '$MINIFOLIO_PROFILE'" \
  "use one of: $(cd minifolio/profiles && ls *.json | sed 's/\.json$//' | tr '\n' ' ')"

if [ -n "$external" ]; then
  echo "==> target: ${FOLIO_URL:-the FOLIO of env/${K6_ENV}.json} (FOLIO_URL/K6_ENV set): minifolio is not started, seeded or reset, and what the run leaves checked out is not checked afterwards (teardown still checks in the run's own loans)"
  if [ "$WORKFLOW" = search ]; then make --no-print-directory search-data; fi
else
# A profile is applied at start, so minifolio restarts for every run; that also
# clears what a leak profile accumulated in the previous run.
bin/minifolio down --run-dir "$run_dir" >/dev/null
echo "==> minifolio: starting with profile $MINIFOLIO_PROFILE on 127.0.0.1:$FP_MINIFOLIO_PORT"
up_args=()
if [ "$WORKFLOW" = search ]; then
  # OpenSearch joins the stack only for this workflow (reused when it runs already).
  FP_OPENSEARCH_PORT=$FP_OPENSEARCH_PORT stack/stack.sh up search
  up_args=(--opensearch "http://127.0.0.1:$FP_OPENSEARCH_PORT")
fi
bin/minifolio up --run-dir "$run_dir" --port "$FP_MINIFOLIO_PORT" --profile "$MINIFOLIO_PROFILE" --token-ttl "$TOKEN_TTL" "${up_args[@]}"
echo "==> minifolio: seeding $FP_TENANT if empty ($SEED_ITEMS items, $SEED_USERS users, $SEED_LOANS open loans)"
bin/minifolio seed --tenant "$FP_TENANT" --admin-user "$FP_USER" --items "$SEED_ITEMS" --users "$SEED_USERS" --loans "$SEED_LOANS" --events-per-user "$SEED_EVENTS_PER_USER" --authorities "$SEED_AUTHORITIES"
echo "==> minifolio: reset to the pre-test state (PTF's restore)"
bin/minifolio reset --tenant "$FP_TENANT"

# --- search: a second tenant to reindex, both tenants indexed, the query files ---
if [ "$WORKFLOW" = search ]; then
  SEARCH_TENANT_A=${REINDEX_TENANT:-$FP_REINDEX_TENANT}
  echo "==> minifolio: seeding $SEARCH_TENANT_A (the tenant a reindex phase reindexes) if empty"
  bin/minifolio seed --tenant "$SEARCH_TENANT_A" --admin-user "$FP_USER" --items "$SEED_ITEMS" --users "$SEED_USERS" --loans "$SEED_LOANS" --authorities "$SEED_AUTHORITIES"
  # Both tenants indexed through mod-search's own reindex API, so the baseline phase searches a
  # full index and the reindex phase rebuilds one, as on a real FOLIO.
  for t in "$FP_TENANT" "$SEARCH_TENANT_A"; do
    node tools/search-index.mjs --url "http://127.0.0.1:$FP_MINIFOLIO_PORT" --tenant "$t"
  done
  make --no-print-directory search-data
fi
fi # minifolio

TESTID=${TESTID:-$(fp_new_testid "$WORKFLOW" "${RELEASE:-${K6_ENV:-folio}}")}
fp_testid_ok "$TESTID" || die "TESTID '$TESTID' is not a test id" \
  "use letters, digits, . _ - (e.g. cico-20261122T030000Z-lotus)"
# The target as k6 sees it: minifolio's gateway, or what the user set.
k6_target=()
if [ -z "$external" ]; then
  k6_target=(FOLIO_URL="http://127.0.0.1:$FP_MINIFOLIO_PORT" FOLIO_DB_PORT="$FP_PG_PORT")
  target="minifolio ($MINIFOLIO_PROFILE)"
else
  target=${FOLIO_URL:-env/$K6_ENV.json}
fi
# A wrong password, user, tenant or URL stops here with one line, before k6 starts.
probe_rc=0
env "${k6_target[@]}" K6_ENV="${K6_ENV:-local}" node tools/login-probe.mjs || probe_rc=$?
[ "$probe_rc" -eq 0 ] || exit "$probe_rc"

out=results/$TESTID
mkdir -p "$out"
# --- report: database statistics around k6 (read by folio-perf report's database section) ---
# pg_stat_statements summed per statement, and per module log the count of RMB's "Doing … without
# index" lines, once before and once after k6; the report diffs the two. The password
# reaches psql through PGPASSWORD, never its command line. A failure only costs the report these tables.
db_snapshot() { # db_snapshot start|end
  PGPASSWORD=$FOLIO_DB_PASSWORD psql -X -q -t -A -h 127.0.0.1 -p "$FP_PG_PORT" -U folio -d folio -c \
    "SELECT coalesce(json_agg(s), '[]') FROM (SELECT queryid::text AS queryid, min(query) AS query, sum(calls) AS calls,
       sum(total_exec_time) AS total_ms, sum(rows) AS rows FROM pg_stat_statements
       WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) GROUP BY queryid) s" \
    >"$out/pg-statements-$1.json" 2>/dev/null || { rm -f "$out/pg-statements-$1.json"; echo "==> report: no pg_stat_statements snapshot ($1)"; }
  local f n sep='' json='{'
  for f in "$run_dir"/logs/*.log; do
    [ -f "$f" ] || continue
    # The same four words of RMB's warning as the report's WITHOUT_INDEX (tools/report/db-statements.mjs).
    n=$(grep -c -E 'Doing (SQL query|FT search|LIKE search|wildcard LIKE search) without index' "$f" || true)
    json+="$sep\"$(basename "$f" .log)\": ${n:-0}"; sep=', '
  done
  printf '%s}\n' "$json" >"$out/index-lines-$1.json"
}
# Only minifolio's database and logs are this stack's; a real FOLIO's are the report's --module-logs.
[ -n "$external" ] || db_snapshot start
echo "==> k6: $script PROFILE=$PROFILE against $target, testid $TESTID"
case $WORKFLOW in search) dash=folio-mod-search ;; *) dash=folio-cico ;; esac
grafana_url="http://localhost:$FP_GRAFANA_PORT/d/$dash?var-testid=$TESTID&from=now-1h&to=now&refresh=30s"
echo "==> live: InfluxDB http://127.0.0.1:$FP_INFLUX_PORT database k6, testid $TESTID"
echo "    Grafana (Docker): docker compose --profile native-grafana up -d grafana-native, then open $grafana_url"
# Progress: k6's bar on a terminal; otherwise one line per PROGRESS_EVERY seconds.
PROGRESS_EVERY=${PROGRESS_EVERY:-60}
[[ "$PROGRESS_EVERY" =~ ^[1-9][0-9]*$ ]] || die "PROGRESS_EVERY '$PROGRESS_EVERY' is not a number of seconds" "use e.g. PROGRESS_EVERY=60"
quiet=(--quiet)
progress_pid=
influx_auth() { # curl's config lines for InfluxDB's credentials (none without K6_INFLUXDB_USERNAME)
  local u=${K6_INFLUXDB_USERNAME:-} p=${K6_INFLUXDB_PASSWORD:-}
  [ -n "$u" ] || return 0
  u=${u//\\/\\\\} p=${p//\\/\\\\}
  printf 'user = "%s:%s"\n' "${u//\"/\\\"}" "${p//\"/\\\"}"
}
progress() { # requests of the last interval, from InfluxDB; ends when run.sh kills it
  local t0=$SECONDS sp n q
  trap 'kill "$sp" 2>/dev/null; exit 0' TERM
  trap '' INT # Ctrl-C is k6's to handle; this loop ends when run.sh kills it
  q="SELECT count(\"value\") FROM \"http_reqs\" WHERE \"testid\" = '$TESTID' AND time > now() - ${PROGRESS_EVERY}s GROUP BY \"expected_response\""
  while :; do
    sleep "$PROGRESS_EVERY" >/dev/null 2>&1 &
    sp=$!
    wait "$sp"
    # InfluxDB's credentials, when it has auth enabled (k6's K6_INFLUXDB_USERNAME/PASSWORD), reach
    # curl as its config on stdin (printf is the shell's own: never an argument anyone can list).
    n=$(influx_auth | curl -K - -fsS -G --max-time 5 "http://127.0.0.1:$FP_INFLUX_PORT/query" --data-urlencode db=k6 --data-urlencode "q=$q" 2>/dev/null |
      node -e 'let t="";process.stdin.on("data",d=>t+=d).on("end",()=>{let ok=0,bad=0;for(const s of (JSON.parse(t).results[0].series||[])){const c=s.values[0][1];if(s.tags&&s.tags.expected_response==="false")bad+=c;else ok+=c;}process.stdout.write(`${ok+bad} requests (${bad} failed)`)})' 2>/dev/null) || n=
    echo "==> progress: $(((SECONDS - t0) / 60)) min $(((SECONDS - t0) % 60)) s in, ${n:-InfluxDB did not answer}${n:+ in the last $PROGRESS_EVERY s} (testid $TESTID)"
  done
}
if [ -t 1 ]; then
  quiet=()
else
  progress &
  progress_pid=$!
fi
set +e
trap ':' INT # Ctrl-C reaches k6 (same process group); this script lives on to check what k6 left
# The output writes what it delivered to sample-loss.json when it stops
# (before handleSummary); SAMPLE_LOSS decides what a loss does to the run.
rm -f "$out/sample-loss.json"
# Only the metrics the dashboards, report and verdict read reach InfluxDB (lib/metrics.js's
# STORED_METRICS); K6_INFLUXDB_METRICS='*' (or a longer list) writes k6's other metrics too.
if [ -z "${K6_INFLUXDB_METRICS:-}" ]; then
  K6_INFLUXDB_METRICS=$(node --input-type=module -e "import { STORED_METRICS } from './lib/metrics.js'; process.stdout.write(STORED_METRICS.join(','))")
fi
export K6_INFLUXDB_METRICS
k6_env=(K6_ENV="${K6_ENV:-local}" TESTID="$TESTID" RELEASE="$RELEASE" PROFILE="$PROFILE" "${k6_target[@]}"
  K6_WEB_DASHBOARD=true K6_WEB_DASHBOARD_PORT=-1 K6_NO_USAGE_REPORT=true)
if [ "$RUNNERS" -eq 1 ]; then
  K6_INFLUXDB_LOSS_FILE="$out/sample-loss.json" K6_WEB_DASHBOARD_EXPORT="$out/k6-report.html" env "${k6_env[@]}" \
    bin/k6 run "${quiet[@]}" --address= -o "influxdb-lp=http://127.0.0.1:$FP_INFLUX_PORT/k6" "$script"
else
  # RUNNERS=N: N k6 processes on execution segments of this plan; the verdict over all of them
  # decides (tools/run-runners.sh).
  env "${k6_env[@]}" tools/run-runners.sh "$RUNNERS" "$out" "http://127.0.0.1:$FP_INFLUX_PORT" "$script" \
    --address= -o "influxdb-lp=http://127.0.0.1:$FP_INFLUX_PORT/k6"
fi
rc=$?
set -e
[ -n "$external" ] || db_snapshot end # --- report: end of the database statistics block ---
if [ -n "$progress_pid" ]; then
  kill "$progress_pid" 2>/dev/null || true
  wait "$progress_pid" 2>/dev/null || true
fi

# What the run left checked out. The reset above truncated the loans and made every item
# Available, so any open loan or Checked-out item now is this run's. Teardown checks them in;
# a second Ctrl-C makes k6 exit at once (105) without it.
leftovers() {
  PGPASSWORD=$FOLIO_DB_PASSWORD psql -X -q -t -A -h 127.0.0.1 -p "$FP_PG_PORT" -U folio -d folio -c \
    "SELECT i.jsonb->>'barcode' FROM ${FP_TENANT}_mod_inventory_storage.item i WHERE i.jsonb->'status'->>'name' = 'Checked out'
       OR EXISTS (SELECT 1 FROM ${FP_TENANT}_mod_circulation_storage.loan l WHERE l.jsonb->>'itemId' = i.id::text
                  AND lower(l.jsonb->'status'->>'name') = 'open') ORDER BY 1" 2>&1
}
left=
[ "$WORKFLOW" = cico ] && [ -z "$external" ] && { left=$(leftovers) || { echo "==> cannot check what the run left checked out: ${left%%$'\n'*}"; left=; }; }
# Stopped k6 (105): requests it dropped may still be committing; list until two listings agree.
if [ "$WORKFLOW" = cico ] && [ -z "$external" ] && [ "$rc" = 105 ]; then
  for _ in 1 2 3 4 5; do
    sleep 2
    again=$(leftovers) || break
    [ "$again" = "$left" ] && break
    left=$again
  done
fi
trap - INT
if [ -n "$left" ]; then
  echo "==> the run left $(wc -l <<<"$left") items checked out: $(head -n 20 <<<"$left" | tr '\n' ' ')"
  echo "    fix: node tools/folio-perf.mjs reset (= make reset: bin/minifolio reset on this stack's database; the next make run resets too)"
fi
# Samples that did not reach InfluxDB: said in the summary, and a failed run under
# SAMPLE_LOSS=fail (exit 96 when k6 itself passed). A loss file that is missing, unreadable or
# from fewer runners than ran means the loss is unknown, which fails the run alike.
loss=$(node tools/sample-loss.mjs "$out") || loss="unknown ==> samples: $out/sample-loss.json could not be judged; whether samples were lost is unknown"
echo "${loss#* }"
case ${loss%% *} in
  lost | unknown)
    if [ "$SAMPLE_LOSS" = fail ]; then
      echo "==> the run fails for it (SAMPLE_LOSS=fail; SAMPLE_LOSS=warn only reports it)"
      [ "$rc" -eq 0 ] && rc=96
    fi
    ;;
esac
# Only what exists: a run that stopped in setup wrote no HTML report.
results=()
for f in "$out/summary.json" "$out/k6-report.html"; do [ -f "$f" ] && results+=("$f"); done
if [ "${#results[@]}" -gt 0 ]; then
  echo "==> results: ${results[*]}"
else
  rmdir "$out" 2>/dev/null || true
fi
echo "==> samples: InfluxDB http://127.0.0.1:$FP_INFLUX_PORT database k6, testid $TESTID"
echo "    Grafana (Docker): docker compose --profile native-grafana up -d grafana-native, then open ${grafana_url%%&from=*}"
# The release report of this run (tables, module CPU/memory, charts) is one command away.
if [ -f "$out/summary.json" ]; then
  echo "==> report: FP_INFLUX_URL=http://127.0.0.1:$FP_INFLUX_PORT node tools/folio-perf.mjs report $TESTID --folio-url ${FOLIO_URL:-http://127.0.0.1:$FP_MINIFOLIO_PORT}"
  echo "    (or: make report TESTID=$TESTID) writes $out/report.md and $out/report.html"
fi
case $rc in
  0) ;;
  99) if [ "$RUNNERS" -eq 1 ]; then echo "==> thresholds failed: k6 exit code 99 (see the ✗ lines above)"; else echo "==> thresholds failed over all $RUNNERS runners' samples: exit code 99 (see the verdict above)"; fi ;;
  96) echo "==> samples lost: exit code 96 (SAMPLE_LOSS=fail)" ;;
  *) echo "==> k6 exited with $rc" ;;
esac
exit $rc

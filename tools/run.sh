#!/usr/bin/env bash
# `make run`: one check-in/check-out run (WORKFLOW=cico, the default) or one
# mod-search run (WORKFLOW=search) on the native stack, start to finish.
#   1. the stack is up (make's prerequisite), minifolio is (re)started with
#      MINIFOLIO_PROFILE, seeded when empty and reset to the pre-test state, as
#      PTF restored its database before every test;
#   2. k6 runs scripts/check-in-check-out.js with PROFILE, streaming every sample
#      to InfluxDB and exporting its HTML report;
#   3. results/<testid>/ holds summary.json and k6-report.html.
# k6's exit code is the run's: 99 when a threshold failed.
#
# Settings (make variables or environment): PROFILE (smoke), MINIFOLIO_PROFILE
# (fast), RELEASE (label of the system under test; default the minifolio
# profile), DURATION, VUS, THINK, BASELINE, SEED_ITEMS, SEED_USERS, SEED_LOANS,
# SEED_EVENTS_PER_USER (patron-block history, for juniper-patron-blocks),
# TOKEN_TTL (minifolio's access-token lifetime), TESTID, SEED_AUTHORITIES
# (MARC authority records of a new tenant, 2000), SAMPLE_LOSS (fail: a run
# whose samples did not all reach InfluxDB exits 96 when k6 passed; warn: only
# reported), K6_INFLUXDB_RETRY_TIMEOUT (how long a sample may wait for InfluxDB,
# default 60s). WORKFLOW=search: see the search block below (REINDEX_TENANT,
# REINDEX_API, ... reach k6 unchanged).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD

PROFILE=${PROFILE:-smoke}
MINIFOLIO_PROFILE=${MINIFOLIO_PROFILE:-fast}
RELEASE=${RELEASE:-$MINIFOLIO_PROFILE}
SEED_ITEMS=${SEED_ITEMS:-20000}
SEED_USERS=${SEED_USERS:-2000}
SEED_LOANS=${SEED_LOANS:-500}
SEED_EVENTS_PER_USER=${SEED_EVENTS_PER_USER:-0}
# MARC authorities for the search workflow's authority templates (ignored by CICO).
SEED_AUTHORITIES=${SEED_AUTHORITIES:-2000}
TOKEN_TTL=${TOKEN_TTL:-10m}
FP_PG_PORT=${FP_PG_PORT:-55432}
FP_INFLUX_PORT=${FP_INFLUX_PORT:-58086}
FP_MINIFOLIO_PORT=${FP_MINIFOLIO_PORT:-9130}
FP_STACK_DIR=${FP_STACK_DIR:-$repo/.stack}
FP_OPENSEARCH_PORT=${FP_OPENSEARCH_PORT:-59199}
export FOLIO_DB_PASSWORD=${FOLIO_DB_PASSWORD:-folio}
# minifolio's operator password is a local-only default; a real FOLIO's comes from the user.
export FOLIO_PASSWORD=${FOLIO_PASSWORD:-admin} MINIFOLIO_ADMIN_PASSWORD=${FOLIO_PASSWORD:-admin}
# urlencode STRING: every byte but RFC 3986's unreserved characters as %XX, so
# a password with @ # / ? % or a space stays one URL component.
urlencode() {
  local LC_ALL=C s=$1 out='' c i
  for ((i = 0; i < ${#s}; i++)); do
    c=${s:i:1}
    case $c in
      [A-Za-z0-9._~-]) out+=$c ;;
      *) printf -v c '%%%02X' "'$c"; out+=$c ;;
    esac
  done
  printf '%s' "$out"
}
# The DB URL reaches minifolio through its environment, never its command line.
export MINIFOLIO_DB="postgres://folio:$(urlencode "$FOLIO_DB_PASSWORD")@127.0.0.1:$FP_PG_PORT/folio?sslmode=disable"
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
case $SAMPLE_LOSS in fail | warn) ;; *) die "SAMPLE_LOSS '$SAMPLE_LOSS' is neither fail nor warn" "use SAMPLE_LOSS=fail (default) or warn" ;; esac
[ -f "minifolio/profiles/$MINIFOLIO_PROFILE.json" ] || die "unknown MINIFOLIO_PROFILE '$MINIFOLIO_PROFILE'" \
  "use one of: $(cd minifolio/profiles && ls *.json | sed 's/\.json$//' | tr '\n' ' ')"

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
echo "==> minifolio: seeding fs09000000 if empty ($SEED_ITEMS items, $SEED_USERS users, $SEED_LOANS open loans)"
bin/minifolio seed --items "$SEED_ITEMS" --users "$SEED_USERS" --loans "$SEED_LOANS" --events-per-user "$SEED_EVENTS_PER_USER" --authorities "$SEED_AUTHORITIES"
echo "==> minifolio: reset to the pre-test state (PTF's restore)"
bin/minifolio reset

# --- search: a second tenant to reindex, both tenants indexed, the query files ---
if [ "$WORKFLOW" = search ]; then
  SEARCH_TENANT_A=${REINDEX_TENANT:-fs09000001}
  echo "==> minifolio: seeding $SEARCH_TENANT_A (the tenant a reindex phase reindexes) if empty"
  bin/minifolio seed --tenant "$SEARCH_TENANT_A" --items "$SEED_ITEMS" --users "$SEED_USERS" --loans "$SEED_LOANS" --authorities "$SEED_AUTHORITIES"
  # Both tenants indexed through mod-search's own reindex API, so the baseline phase searches a
  # full index and the reindex phase rebuilds one, as on a real FOLIO.
  for t in fs09000000 "$SEARCH_TENANT_A"; do
    node tools/search-index.mjs --url "http://127.0.0.1:$FP_MINIFOLIO_PORT" --tenant "$t"
  done
  make --no-print-directory search-data
fi

TESTID=${TESTID:-$WORKFLOW-$(date -u +%Y%m%dT%H%M%SZ)-$RELEASE}
[[ "$TESTID" =~ ^[A-Za-z0-9][A-Za-z0-9._-]*$ ]] || die "TESTID '$TESTID' is not a test id" \
  "use letters, digits, . _ - (e.g. cico-20261122T030000Z-lotus)"
out=results/$TESTID
mkdir -p "$out"
# --- report: database statistics around k6 (read by folio-perf report's database section) ---
# pg_stat_statements summed per statement, and per module log the count of RMB's "Doing SQL query
# without index" lines, once before and once after k6; the report diffs the two. The password
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
    n=$(grep -c 'Doing SQL query without index' "$f" || true)
    json+="$sep\"$(basename "$f" .log)\": ${n:-0}"; sep=', '
  done
  printf '%s}\n' "$json" >"$out/index-lines-$1.json"
}
db_snapshot start
echo "==> k6: $script PROFILE=$PROFILE against minifolio ($MINIFOLIO_PROFILE), testid $TESTID"
set +e
trap ':' INT # Ctrl-C reaches k6 (same process group); this script lives on to check what k6 left
# The output writes what it delivered to sample-loss.json when it stops
# (before handleSummary); SAMPLE_LOSS decides what a loss does to the run.
rm -f "$out/sample-loss.json"
K6_INFLUXDB_LOSS_FILE="$out/sample-loss.json" K6_ENV=${K6_ENV:-local} TESTID=$TESTID RELEASE=$RELEASE PROFILE=$PROFILE \
  FOLIO_URL="http://127.0.0.1:$FP_MINIFOLIO_PORT" FOLIO_DB_PORT=$FP_PG_PORT \
  K6_WEB_DASHBOARD=true K6_WEB_DASHBOARD_PORT=-1 K6_WEB_DASHBOARD_EXPORT="$out/k6-report.html" \
  K6_NO_USAGE_REPORT=true bin/k6 run --quiet --address= -o "influxdb-lp=http://127.0.0.1:$FP_INFLUX_PORT/k6" "$script"
rc=$?
set -e
db_snapshot end # --- report: end of the database statistics block ---

# What the run left checked out. The reset above truncated the loans and made every item
# Available, so any open loan or Checked-out item now is this run's. Teardown checks them in;
# a second Ctrl-C makes k6 exit at once (105) without it.
leftovers() {
  PGPASSWORD=$FOLIO_DB_PASSWORD psql -X -q -t -A -h 127.0.0.1 -p "$FP_PG_PORT" -U folio -d folio -c \
    "SELECT i.jsonb->>'barcode' FROM fs09000000_mod_inventory_storage.item i WHERE i.jsonb->'status'->>'name' = 'Checked out'
       OR EXISTS (SELECT 1 FROM fs09000000_mod_circulation_storage.loan l WHERE l.jsonb->>'itemId' = i.id::text
                  AND lower(l.jsonb->'status'->>'name') = 'open') ORDER BY 1" 2>&1
}
left=
[ "$WORKFLOW" = cico ] && { left=$(leftovers) || { echo "==> cannot check what the run left checked out: ${left%%$'\n'*}"; left=; }; }
# Stopped k6 (105): requests it dropped may still be committing; list until two listings agree.
if [ "$WORKFLOW" = cico ] && [ "$rc" = 105 ]; then
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
  echo "    fix: MINIFOLIO_DB=postgres://folio:<FOLIO_DB_PASSWORD>@127.0.0.1:$FP_PG_PORT/folio bin/minifolio reset (the next make run resets too)"
fi
# Samples that did not reach InfluxDB: said in the summary, and a failed run
# under SAMPLE_LOSS=fail (exit 96 when k6 itself passed).
if [ -f "$out/sample-loss.json" ]; then
  loss=$(node -e '
    const fs = require("fs");
    const [lossFile, summaryFile] = process.argv.slice(1);
    const loss = JSON.parse(fs.readFileSync(lossFile, "utf8"));
    if (fs.existsSync(summaryFile)) {
      const s = JSON.parse(fs.readFileSync(summaryFile, "utf8"));
      s.sampleLoss = { samples: loss.samples, written: loss.written, dropped: loss.dropped, share: loss.share, reasons: loss.reasons };
      fs.writeFileSync(summaryFile, JSON.stringify(s, null, 2) + "\n");
    }
    process.stdout.write(`${loss.dropped} ${loss.samples} ${(100 * loss.share).toFixed(2)}`);
  ' "$out/sample-loss.json" "$out/summary.json") || loss=''
  read -r dropped samples pct <<<"$loss"
  if [ -z "$loss" ]; then
    echo "==> samples: $out/sample-loss.json is unreadable; whether samples were lost is unknown" >&2
    [ "$SAMPLE_LOSS" = fail ] && [ "$rc" -eq 0 ] && rc=96
  elif [ "$dropped" -gt 0 ]; then
    echo "==> samples: lost $dropped of $samples ($pct %) on the way to InfluxDB (reasons: $out/sample-loss.json)"
    if [ "$SAMPLE_LOSS" = fail ]; then
      echo "==> the run fails for it (SAMPLE_LOSS=fail; SAMPLE_LOSS=warn only reports it)"
      [ "$rc" -eq 0 ] && rc=96
    fi
  else
    echo "==> samples: all $samples written to InfluxDB"
  fi
fi
echo "==> results: $out/summary.json, $out/k6-report.html"
echo "==> samples: InfluxDB http://127.0.0.1:$FP_INFLUX_PORT database k6, testid $TESTID"
[ "$WORKFLOW" = cico ] && echo "    with Docker: docker compose up -d, then open http://localhost:3000/d/folio-cico?var-testid=$TESTID"
# The release report of this run (tables, module CPU/memory, charts) is one command away.
if [ -f "$out/summary.json" ]; then
  echo "==> report: FP_INFLUX_URL=http://127.0.0.1:$FP_INFLUX_PORT node tools/folio-perf.mjs report $TESTID --folio-url http://127.0.0.1:$FP_MINIFOLIO_PORT"
  echo "    (or: make report TESTID=$TESTID) writes $out/report.md and $out/report.html"
fi
case $rc in
  0) ;;
  99) echo "==> thresholds failed: k6 exit code 99 (see the ✗ lines above)" ;;
  96) echo "==> samples lost: exit code 96 (SAMPLE_LOSS=fail)" ;;
  *) echo "==> k6 exited with $rc" ;;
esac
exit $rc

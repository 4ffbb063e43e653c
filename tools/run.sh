#!/usr/bin/env bash
# `make run`: one check-in/check-out run on the native stack, start to finish.
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
# TOKEN_TTL (minifolio's access-token lifetime), TESTID.
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
TOKEN_TTL=${TOKEN_TTL:-10m}
FP_PG_PORT=${FP_PG_PORT:-55432}
FP_INFLUX_PORT=${FP_INFLUX_PORT:-58086}
FP_MINIFOLIO_PORT=${FP_MINIFOLIO_PORT:-9130}
FP_STACK_DIR=${FP_STACK_DIR:-$repo/.stack}
export FOLIO_DB_PASSWORD=${FOLIO_DB_PASSWORD:-folio}
# minifolio's operator password is a local-only default; a real FOLIO's comes from the user.
export FOLIO_PASSWORD=${FOLIO_PASSWORD:-admin} MINIFOLIO_ADMIN_PASSWORD=${FOLIO_PASSWORD:-admin}
# The DB URL reaches minifolio through its environment, never its command line.
export MINIFOLIO_DB="postgres://folio:$FOLIO_DB_PASSWORD@127.0.0.1:$FP_PG_PORT/folio?sslmode=disable"
run_dir=$FP_STACK_DIR/minifolio
mkdir -p "$FP_STACK_DIR/logs" results

die() { printf 'folio-perf: %s. Fix: %s\n' "$1" "$2" >&2; exit 1; }
[ -f "scripts/check-in-check-out.js" ] || die "scripts/check-in-check-out.js is missing" "restore it from git"
[ -f "minifolio/profiles/$MINIFOLIO_PROFILE.json" ] || die "unknown MINIFOLIO_PROFILE '$MINIFOLIO_PROFILE'" \
  "use one of: $(cd minifolio/profiles && ls *.json | sed 's/\.json$//' | tr '\n' ' ')"

# A profile is applied at start, so minifolio restarts for every run; that also
# clears what a leak profile accumulated in the previous run.
bin/minifolio down --run-dir "$run_dir" >/dev/null
echo "==> minifolio: starting with profile $MINIFOLIO_PROFILE on 127.0.0.1:$FP_MINIFOLIO_PORT"
bin/minifolio up --run-dir "$run_dir" --port "$FP_MINIFOLIO_PORT" --profile "$MINIFOLIO_PROFILE" --token-ttl "$TOKEN_TTL"
echo "==> minifolio: seeding fs09000000 if empty ($SEED_ITEMS items, $SEED_USERS users, $SEED_LOANS open loans)"
bin/minifolio seed --items "$SEED_ITEMS" --users "$SEED_USERS" --loans "$SEED_LOANS" --events-per-user "$SEED_EVENTS_PER_USER"
echo "==> minifolio: reset to the pre-test state (PTF's restore)"
bin/minifolio reset

TESTID=${TESTID:-cico-$(date -u +%Y%m%dT%H%M%SZ)-$RELEASE}
[[ "$TESTID" =~ ^[A-Za-z0-9][A-Za-z0-9._-]*$ ]] || die "TESTID '$TESTID' is not a test id" \
  "use letters, digits, . _ - (e.g. cico-20261122T030000Z-lotus)"
out=results/$TESTID
mkdir -p "$out"
echo "==> k6: PROFILE=$PROFILE against minifolio ($MINIFOLIO_PROFILE), testid $TESTID"
set +e
trap ':' INT # Ctrl-C reaches k6 (same process group); this script lives on to check what k6 left
K6_ENV=${K6_ENV:-local} TESTID=$TESTID RELEASE=$RELEASE PROFILE=$PROFILE \
  FOLIO_URL="http://127.0.0.1:$FP_MINIFOLIO_PORT" FOLIO_DB_PORT=$FP_PG_PORT \
  K6_WEB_DASHBOARD=true K6_WEB_DASHBOARD_PORT=-1 K6_WEB_DASHBOARD_EXPORT="$out/k6-report.html" \
  K6_NO_USAGE_REPORT=true bin/k6 run --quiet --address= -o "influxdb-lp=http://127.0.0.1:$FP_INFLUX_PORT/k6" scripts/check-in-check-out.js
rc=$?
set -e

# What the run left checked out. The reset above truncated the loans and made every item
# Available, so any open loan or Checked-out item now is this run's. Teardown checks them in;
# a second Ctrl-C makes k6 exit at once (105) without it.
leftovers() {
  PGPASSWORD=$FOLIO_DB_PASSWORD psql -X -q -t -A -h 127.0.0.1 -p "$FP_PG_PORT" -U folio -d folio -c \
    "SELECT i.jsonb->>'barcode' FROM fs09000000_mod_inventory_storage.item i WHERE i.jsonb->'status'->>'name' = 'Checked out'
       OR EXISTS (SELECT 1 FROM fs09000000_mod_circulation_storage.loan l WHERE l.jsonb->>'itemId' = i.id::text
                  AND lower(l.jsonb->'status'->>'name') = 'open') ORDER BY 1" 2>&1
}
left=$(leftovers) || { echo "==> cannot check what the run left checked out: ${left%%$'\n'*}"; left=; }
# Stopped k6 (105): requests it dropped may still be committing; list until two listings agree.
if [ "$rc" = 105 ]; then
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
echo "==> results: $out/summary.json, $out/k6-report.html"
echo "==> samples: InfluxDB http://127.0.0.1:$FP_INFLUX_PORT database k6, testid $TESTID"
echo "    with Docker: docker compose up -d, then open http://localhost:3000/d/folio-cico?var-testid=$TESTID"
case $rc in
  0) ;;
  99) echo "==> thresholds failed: k6 exit code 99 (see the ✗ lines above)" ;;
  *) echo "==> k6 exited with $rc" ;;
esac
exit $rc

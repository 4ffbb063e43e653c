#!/usr/bin/env bash
# The native stack: PostgreSQL 15, InfluxDB 1.x and Telegraf as plain processes
# under $FP_STACK_DIR, listening on 127.0.0.1 only. No Docker, no systemd: every
# process is started from here and stopped through its pid file, never by name,
# so a developer's own PostgreSQL or InfluxDB is never touched.
#
#   stack/stack.sh up [search] [eureka] | down | status | clean
#
# `up search` (or FP_SEARCH=1 stack/stack.sh up) also starts OpenSearch, which
# only the search workflow needs; `up eureka` (or FP_EUREKA=1) starts Keycloak,
# which only minifolio's Eureka profiles need. `down` and `clean` always stop
# both, and `status` lists each once it has been started.
#
# Settings (environment, all optional; the defaults of the FP_*_PORT and the
# password are in defaults.env, read through tools/defaults.sh):
#   FP_STACK_DIR        state, logs and pid files         (default <repo>/.stack)
#   FP_PG_PORT          PostgreSQL port
#   FP_INFLUX_PORT      InfluxDB HTTP port
#   FP_INFLUX_RPC_PORT  InfluxDB backup/RPC port
#   FP_TELEGRAF_PORT    Telegraf health endpoint port
#   FP_OPENSEARCH_PORT  OpenSearch HTTP port
#   FP_OPENSEARCH_HEAP  OpenSearch's JVM heap              (default 512m)
#   FP_KEYCLOAK_PORT    Keycloak HTTP port
#   FP_KEYCLOAK_VERSION Keycloak release (make keycloak)
#   FP_KEYCLOAK_ADMIN_PASSWORD  Keycloak's master admin    (local only)
#   FOLIO_DB_PASSWORD   password of the `folio` superuser  (local only)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)
# shellcheck source=stack/lib.sh
. "$here/lib.sh"

cmd=${1:-status}
services=(postgres influxdb telegraf)
want_search=${FP_SEARCH:-0} want_eureka=${FP_EUREKA:-0}
for part in "${@:2}"; do
  case $part in
    search) want_search=1 ;;
    eureka) want_eureka=1 ;;
    *) die "unknown part '$part'" "use stack/stack.sh $cmd [search] [eureka]" ;;
  esac
done
[ "$want_search" = 1 ] && services+=(opensearch)
[ "$want_eureka" = 1 ] && services+=(keycloak)
case "$cmd" in
  up)
    check_disk
    started=()
    # Whatever fails, stop what this invocation started: no half-started stack.
    trap 'rc=$?; if [ $rc -ne 0 ]; then for s in "${started[@]}"; do "${s}_stop" >/dev/null 2>&1 || true; done; fi' EXIT
    for s in "${services[@]}"; do
      if "${s}_running"; then
        step "$s: already up ($("${s}_url")), reusing it"
      else
        # Recorded before the start: a start that dies after spawning its
        # process (e.g. a health-check time-out) must still be stopped.
        started+=("$s")
        "${s}_start"
      fi
    done
    trap - EXIT
    ;;
  down)
    minifolio_stop
    for s in keycloak opensearch telegraf influxdb postgres; do "${s}_stop"; done
    ;;
  status)
    rc=0
    # OpenSearch and Keycloak are listed when asked for or once this stack started
    # them (their pid files stay until down, so one that died shows as down).
    for s in opensearch keycloak; do
      if [[ " ${services[*]} " != *" $s "* ]] && [ -f "$run_dir/$s.pid" ]; then services+=("$s"); fi
    done
    for s in "${services[@]}"; do
      if "${s}_running" && "${s}_healthy"; then state=up; else state=down; rc=1; fi
      printf '%-10s %-5s %s\n' "$s" "$state" "$("${s}_url")"
    done
    exit $rc
    ;;
  clean)
    minifolio_stop
    for s in keycloak opensearch telegraf influxdb postgres; do "${s}_stop"; done
    step "removing $FP_STACK_DIR"
    rm -rf "$FP_STACK_DIR"
    ;;
  *)
    die "unknown command '$cmd'" "use one of: up, down, status, clean"
    ;;
esac

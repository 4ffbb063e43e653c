# shellcheck shell=bash
# The one home of folio-perf's defaults: ports, state directory, tenants, local
# passwords and the testid rule. Sourced by tools/run.sh, tools/folio-perf.mjs
# (through run.sh), stack/lib.sh, tools/bench-k6.sh, minifolio/bench.sh and
# tools/test-env.sh; a value already in the environment wins. Sourced, not run.
fp_repo=${fp_repo:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}

# The demo stack's ports (127.0.0.1 only). The test stack (tools/test-env.sh)
# takes each +1 (minifolio +100), shifted by FP_TEST_PORT_OFFSET.
FP_DEFAULT_PG_PORT=55432
FP_DEFAULT_INFLUX_PORT=58086
FP_DEFAULT_INFLUX_RPC_PORT=58088
FP_DEFAULT_TELEGRAF_PORT=58093
FP_DEFAULT_MINIFOLIO_PORT=9130
FP_DEFAULT_OPENSEARCH_PORT=59199
# Keycloak (Eureka profiles only): HTTP on 127.0.0.1, no management port.
FP_DEFAULT_KEYCLOAK_PORT=58180
# docker-compose.yml's Grafana (both the compose and the native-grafana profile).
FP_DEFAULT_GRAFANA_PORT=3000

: "${FP_STACK_DIR:=$fp_repo/.stack}"
: "${FP_PG_PORT:=$FP_DEFAULT_PG_PORT}"
: "${FP_INFLUX_PORT:=$FP_DEFAULT_INFLUX_PORT}"
: "${FP_INFLUX_RPC_PORT:=$FP_DEFAULT_INFLUX_RPC_PORT}"
: "${FP_TELEGRAF_PORT:=$FP_DEFAULT_TELEGRAF_PORT}"
: "${FP_MINIFOLIO_PORT:=$FP_DEFAULT_MINIFOLIO_PORT}"
: "${FP_OPENSEARCH_PORT:=$FP_DEFAULT_OPENSEARCH_PORT}"
: "${FP_KEYCLOAK_PORT:=$FP_DEFAULT_KEYCLOAK_PORT}"
# The Keycloak release the stack runs: Sunflower's pin (Trillium's GA pin 26.5.4 also runs here).
: "${FP_KEYCLOAK_VERSION:=26.1.3}"
: "${FP_GRAFANA_PORT:=$FP_DEFAULT_GRAFANA_PORT}"

# The tenant every workflow runs on (PTF's), and the one a search run reindexes.
FP_TENANT=fs09000000
FP_REINDEX_TENANT_DEFAULT=fs09000001

# Local-only passwords (the stack's PostgreSQL, minifolio's operator); a real
# FOLIO's come from the user. Never printed.
: "${FOLIO_DB_PASSWORD:=folio}"
# Keycloak's master-realm admin (the stack's Keycloak and minifolio's realm set-up).
: "${FP_KEYCLOAK_ADMIN_PASSWORD:=fp-keycloak-admin}"
export FOLIO_DB_PASSWORD FP_KEYCLOAK_ADMIN_PASSWORD

# fp_urlencode STRING: every byte but RFC 3986's unreserved characters as %XX,
# so a password with @ # / ? % or a space stays one URL component.
fp_urlencode() {
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
# minifolio's database URL on the native stack (minifolio reads it from its environment).
fp_minifolio_db() { printf 'postgres://folio:%s@127.0.0.1:%s/folio?sslmode=disable' "$(fp_urlencode "$FOLIO_DB_PASSWORD")" "$FP_PG_PORT"; }

# testid: letters, digits, . _ - ; the default is <workflow>-<UTC time>-<release>.
fp_testid_ok() { [[ "$1" =~ ^[A-Za-z0-9][A-Za-z0-9._-]*$ ]]; }
fp_new_testid() { printf '%s-%s-%s' "$1" "$(date -u +%Y%m%dT%H%M%SZ)" "$2"; }

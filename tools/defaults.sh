# shellcheck shell=bash
# folio-perf's defaults for the shell: the values of defaults.env (ports, tenants,
# operator, local passwords), the state directory and the helpers around them.
# Sourced by stack/lib.sh, make bench-k6 and bench-jmeter, minifolio/bench.sh and
# tools/test-env.sh, and by folio-perf run for what the shell derives from them
# (tools/cli/stack-defaults.mjs); a value already in the environment wins.
# Sourced, not run.
fp_repo=${fp_repo:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}

# Every KEY=VALUE of defaults.env (ports, tenants, operator, local passwords; that file says
# which), unless the environment already gives KEY a value; FP_<X> keys also as FP_DEFAULT_<X>,
# the value before any override (tools/test-env.sh derives the test stack's ports from them).
fp_defaults_file=$fp_repo/defaults.env
# FP_PG_PASSWORD is the local stack's own name for its password: tests, drills, the demo and the
# gate keep it (tools/local-env.sh) and never a real FOLIO's FOLIO_DB_PASSWORD.
[ -n "${FOLIO_DB_PASSWORD:-}" ] || [ -z "${FP_PG_PASSWORD:-}" ] || FOLIO_DB_PASSWORD=$FP_PG_PASSWORD
[ -r "$fp_defaults_file" ] || { echo "folio-perf: $fp_defaults_file is missing. Fix: restore it from git" >&2; return 1; }
while IFS='=' read -r fp_k fp_v || [ -n "$fp_k" ]; do
  case $fp_k in '' | '#'*) continue ;; esac
  [[ $fp_k =~ ^[A-Z][A-Z0-9_]*$ ]] || { echo "folio-perf: $fp_defaults_file: '$fp_k' is not a KEY=VALUE line. Fix: restore it from git" >&2; return 1; }
  case $fp_k in FP_*) printf -v "FP_DEFAULT_${fp_k#FP_}" '%s' "$fp_v" ;; esac
  [ -n "${!fp_k:-}" ] || printf -v "$fp_k" '%s' "$fp_v"
done <"$fp_defaults_file"
unset fp_k fp_v
: "${FP_STACK_DIR:=$fp_repo/.stack}"
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

# The test id rule is lib/testid.js's (through tools/testid.mjs): fp_testid_ok ID;
# fp_new_testid PREFIX [RELEASE] prints PREFIX-<UTC time>[-RELEASE]; fp_testid_stamp the time alone.
fp_testid_ok() { node "$fp_repo/tools/testid.mjs" check "$1"; }
fp_new_testid() { node "$fp_repo/tools/testid.mjs" new "$@"; }
fp_testid_stamp() { node "$fp_repo/tools/testid.mjs" stamp; }

#!/usr/bin/env bash
# Installs what the native stack and the tests need, when it is missing, from the
# distribution's packages. Idempotent: a second run only checks. Go and Node are
# toolchains, not packages we pick a version of: a missing or too old one is
# reported with the fix.
set -euo pipefail

die() { printf 'folio-perf: %s. Fix: %s\n' "$1" "$2" >&2; exit 1; }

# version_at_least HAVE WANT (dotted numbers)
version_at_least() { [ "$(printf '%s\n%s\n' "$2" "$1" | sort -V | head -n1)" = "$2" ]; }

command -v go >/dev/null || die "Go is not installed" "install Go 1.26 or newer (https://go.dev/doc/install)"
gov=$(go env GOVERSION | sed 's/^go//')
version_at_least "$gov" 1.26 || die "Go $gov is too old" "install Go 1.26 or newer"
command -v node >/dev/null || die "Node.js is not installed" "install Node.js 20 or newer"
nodev=$(node -p 'process.versions.node')
version_at_least "$nodev" 20 || die "Node.js $nodev is too old" "install Node.js 20 or newer"

missing=()
command -v curl >/dev/null || missing+=(curl)
command -v runuser >/dev/null || missing+=(util-linux)
command -v influxd >/dev/null || missing+=(influxdb)
command -v influx >/dev/null || missing+=(influxdb-client)
command -v pgbench >/dev/null || missing+=(postgresql-contrib)
# FP_DEPS=run: only what the stack and a run against your FOLIO need (the gate on your FOLIO,
# tools/gate/gate.mjs, on a runner that may have no sudo): none of the below.
if [ "${FP_DEPS:-all}" != run ]; then
  # The search workflow: OpenSearch runs on a JDK (17, Debian 12's) and its jars
  # come through Maven; seed text and query files draw words from wamerican.
  command -v javac >/dev/null || missing+=(openjdk-17-jdk-headless)
  command -v mvn >/dev/null || missing+=(maven)
  # Keycloak (the Eureka profiles) comes as a zip from Maven Central.
  command -v unzip >/dev/null || missing+=(unzip)
  [ -r /usr/share/dict/american-english ] || missing+=(wamerican)
  # GNU time: the benchmarks read k6's CPU and peak RSS from it.
  [ -x /usr/bin/time ] || missing+=(time)
  # Headless Chromium: only the report's end-to-end test opens report.html in it.
  command -v chromium >/dev/null || missing+=(chromium)
fi
if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
  missing+=(postgresql postgresql-contrib)
elif ! ls /usr/share/postgresql/*/extension/pg_trgm.control >/dev/null 2>&1; then
  missing+=(postgresql-contrib)
fi

if [ ${#missing[@]} -eq 0 ]; then
  extra=", jdk, maven, wamerican"
  [ "${FP_DEPS:-all}" != run ] || extra=" (FP_DEPS=run: what a run needs)"
  echo "==> deps: all present (go $gov, node $nodev, postgresql, influxdb$extra)"
  exit 0
fi

if [ "$(id -u)" = 0 ]; then sudo=""
elif sudo -n true 2>/dev/null; then sudo="sudo -n"
else die "missing packages: ${missing[*]}" "sudo apt-get install -y ${missing[*]}"
fi
command -v apt-get >/dev/null || die "missing packages: ${missing[*]} (and no apt-get here)" "install them with your package manager"

mkdir -p .stack/logs
echo "==> deps: installing ${missing[*]} (log: .stack/logs/apt.log)"
{
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
} >.stack/logs/apt.log 2>&1 || die "apt-get install ${missing[*]} failed" "read .stack/logs/apt.log"
# Debian's package starts its own InfluxDB where an init system runs; the stack
# runs its own instance on its own port, so that one is not needed.
if command -v systemctl >/dev/null && systemctl is-active --quiet influxdb 2>/dev/null; then
  $sudo systemctl stop influxdb || true
fi
echo "==> deps: installed ${missing[*]}"

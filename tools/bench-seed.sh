#!/usr/bin/env bash
# `make bench-minifolio-seed`: how close minifolio's seed comes to
# PostgreSQL's own bulk path on this machine. Per round, interleaved:
#   seed:  `minifolio seed --scale BENCH_SEED_SCALE --force` into tenant bench_seed;
#   floor: the very bytes that seed sends (`minifolio seed --copy-dir`, PostgreSQL's
#          binary COPY format) loaded by the server itself from files into the same
#          tables (emptied in the same transaction, COPY ... FREEZE, as the seed does),
#          then the same indexes and ANALYZE, three at a time as the seed runs them.
# The floor is the seed without its generator and its client: what is left is
# PostgreSQL's work. Wall time, and CPU seconds of minifolio and of the whole
# PostgreSQL cluster (postmaster and every backend, exited ones included), so a
# busy shared machine shows as wall time the CPU seconds do not explain.
# A benchmark, not a test. Needs the stack's PostgreSQL on this machine (FP_PG_DSN)
# and drops bench_seed and its files at the end.
#   BENCH_SEED_SCALE   demo | 1m (default) | ptf
#   BENCH_SEED_ROUNDS  seed/floor pairs (default 1; 3 for min/median/max)
#   BENCH_SEED_FLOOR   0 skips the floor (e.g. at ptf, where the files need 20 GB more)
set -euo pipefail
cd "$(dirname "$0")/.."
SCALE=${BENCH_SEED_SCALE:-1m}
ROUNDS=${BENCH_SEED_ROUNDS:-1}
FLOOR=${BENCH_SEED_FLOOR:-1}
tenant=bench_seed
die() { echo "bench-minifolio-seed: $1. Fix: $2" >&2; exit 1; }
# shellcheck disable=SC2016 # the fix is a command for the user to type, unexpanded
[ -n "${FP_PG_DSN:-}" ] || die "FP_PG_DSN is not set" \
  'make stack-up, then export FP_PG_DSN=$(. tools/defaults.sh && fp_minifolio_db)'
[[ $ROUNDS =~ ^[1-9][0-9]*$ ]] || die "BENCH_SEED_ROUNDS=$ROUNDS is not a positive number" "e.g. BENCH_SEED_ROUNDS=3"
export MINIFOLIO_DB=$FP_PG_DSN
# psql gets the connection as PG* variables, so the password never shows in ps.
eval "$(python3 -c 'import os, shlex, urllib.parse as u; d = u.urlparse(os.environ["FP_PG_DSN"]); print(" ".join("export %s=%s" % (k, shlex.quote(v)) for k, v in {"PGHOST": d.hostname or "", "PGPORT": str(d.port or 5432), "PGUSER": u.unquote(d.username or ""), "PGPASSWORD": u.unquote(d.password or ""), "PGDATABASE": d.path.lstrip("/")}.items()))')"
q() { psql -X -q -At -v ON_ERROR_STOP=1 -c "$1"; }
datadir=$(q "SHOW data_directory") || die "cannot query PostgreSQL at $PGHOST:$PGPORT" "make stack-up"
[ -r "$datadir/postmaster.pid" ] || die "PostgreSQL's data directory $datadir is not on this machine" \
  "run the benchmark against the native stack's PostgreSQL"
postmaster=$(head -n1 "$datadir/postmaster.pid")
files=$(dirname "$datadir")/bench-seed-copy

cleanup() {
  bin/minifolio drop --tenant "$tenant" >/dev/null 2>&1 || true
  rm -rf "$files"
}
trap cleanup EXIT

# CPU seconds of the whole cluster so far: the postmaster, its reaped children
# (cutime, cstime) and the live ones.
pg_cpu() {
  python3 - "$postmaster" <<'PY'
import os, sys
pm = sys.argv[1]
def fields(pid):
    s = open(f"/proc/{pid}/stat").read()
    return s[s.rindex(")") + 2:].split()
f = fields(pm)
total = sum(int(x) for x in f[11:15])  # utime stime cutime cstime
for pid in os.listdir("/proc"):
    if pid.isdigit() and pid != pm:
        try:
            g = fields(pid)
        except OSError:
            continue
        if g[1] == pm:
            total += int(g[11]) + int(g[12])
print(total / os.sysconf("SC_CLK_TCK"))
PY
}
now() { date +%s.%N; }
sub() { python3 -c "import sys; print(f'{float(sys.argv[1]) - float(sys.argv[2]):.1f}')" "$1" "$2"; }

# Runs a command and sets wall, cpu (its own user + sys) and pgcpu.
timed() {
  local c0 t0 times
  c0=$(pg_cpu)
  t0=$(now)
  times=$(mktemp)
  /usr/bin/time -f '%U %S' -o "$times" "$@"
  wall=$(sub "$(now)" "$t0")
  pgcpu=$(sub "$(pg_cpu)" "$c0")
  cpu=$(awk '{printf "%.1f", $1 + $2}' "$times")
  rm -f "$times"
}

seed_round() {
  timed bin/minifolio seed --tenant "$tenant" --scale "$SCALE" --force >"$files.log" 2>&1 ||
    { tail -n3 "$files.log" >&2; die "the seed failed" "read the lines above"; }
  seed_wall+=("$wall")
  echo "    seed:  $wall s wall; CPU s: minifolio $cpu, PostgreSQL $pgcpu ($(grep -E 'indexes built in' "$files.log" | sed 's/.*indexes built/indexes built/'))"
}

# The floor reloads the seeded tables from the seed's own bytes.
floor_round() {
  if [ ! -d "$files" ]; then
    local free need
    need=$(q "SELECT sum(pg_relation_size(c.oid)) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname LIKE '${tenant}\_%'")
    free=$(df --output=avail -B1 "$(dirname "$datadir")" | tail -n1)
    [ "$free" -gt $((need + (2 << 30))) ] || { echo "    floor: skipped: its files need about $((need / 1000000)) MB, the disk has $((free / 1000000)) MB free"; FLOOR=0; return; }
    timed bin/minifolio seed --tenant "$tenant" --scale "$SCALE" --copy-dir "$files" --quiet >/dev/null
    chmod -R a+rX "$files" # read by the server's own user
    echo "    (the generator alone wrote the seed's COPY streams, $(du -sm "$files" | cut -f1) MB, in $wall s, $cpu CPU s)"
  fi
  # The seed's indexes, as PostgreSQL has them, dropped (untimed) and rebuilt (timed).
  local tables=() f
  for f in "$files"/*.copy; do
    f=${f##*/}
    tables+=("${tenant}_${f%.copy}")
  done
  local list
  list=$(printf "'%s'," "${tables[@]}")
  list=${list%,}
  local defs
  defs=$(q "SELECT pg_relation_size((i.schemaname || '.' || i.indexname)::regclass), CASE WHEN c.contype = 'p' THEN format('ALTER TABLE %s ADD CONSTRAINT %I PRIMARY KEY (id)', i.schemaname || '.' || i.tablename, i.indexname)
      ELSE i.indexdef END FROM pg_indexes i LEFT JOIN pg_constraint c ON c.conname = i.indexname AND c.connamespace = i.schemaname::regnamespace
      WHERE i.schemaname || '.' || i.tablename IN ($list)" | tr '|' '\t')
  local t
  for t in "${tables[@]}"; do
    q "ALTER TABLE $t DROP CONSTRAINT IF EXISTS ${t##*.}_pkey"
    q "SELECT format('DROP INDEX %I.%I', schemaname, indexname) FROM pg_indexes WHERE schemaname || '.' || tablename = '$t'" |
      while read -r d; do q "$d"; done
  done
  # Three sessions, as the seed's three connections, each given the longest
  # statements first to whichever is least loaded (by file or index size).
  local copies=() indexes=() analyze=()
  for f in "$files"/*.copy; do
    t=${tenant}_$(basename "$f" .copy)
    copies+=("$(stat -c %s "$f")	TRUNCATE $t; COPY $t (id, jsonb) FROM '$f' WITH (FORMAT binary, FREEZE);")
    analyze+=("1	ANALYZE $t;")
  done
  while IFS='	' read -r size d; do indexes+=("$size	$d;"); done <<<"$defs"
  local c0 t0
  c0=$(pg_cpu)
  t0=$(now)
  lanes "SET synchronous_commit = off;" "${copies[@]}"
  local copied
  copied=$(sub "$(now)" "$t0")
  lanes "SET maintenance_work_mem = '512MB'; SET max_parallel_maintenance_workers = 0;" "${indexes[@]}"
  lanes "" "${analyze[@]}"
  wall=$(sub "$(now)" "$t0")
  pgcpu=$(sub "$(pg_cpu)" "$c0")
  floor_wall+=("$wall")
  echo "    floor: $wall s wall (COPY $copied s, then $(wc -l <<<"$defs") indexes and ANALYZE); CPU s: PostgreSQL $pgcpu"
}

# lanes <preamble> "<weight>\t<statement>"...: the statements in three psql
# sessions (heaviest first, each to the least loaded session), in parallel; each
# session runs its statements one after the other as autocommitted transactions
# (a COPY's TRUNCATE and COPY in one).
lanes() {
  local pre=$1
  shift
  local dir
  dir=$(mktemp -d)
  printf '%s\n' "$@" | python3 -c '
import sys
rows = sorted((l.rstrip("\n").split("\t", 1) for l in sys.stdin if l.strip()), key=lambda r: -int(r[0]))
load, lanes = [0, 0, 0], [[], [], []]
for w, stmt in rows:
    k = load.index(min(load))
    load[k] += int(w)
    lanes[k].append(stmt)
for k, l in enumerate(lanes):
    with open(sys.argv[1] + "/lane%d.sql" % k, "w") as f:
        f.write(sys.argv[2] + "\n" + "\n".join("BEGIN; " + s + " COMMIT;" for s in l) + "\n")
' "$dir" "$pre"
  local k pids=()
  for k in 0 1 2; do
    psql -X -q -v ON_ERROR_STOP=1 -f "$dir/lane$k.sql" >/dev/null &
    pids+=($!)
  done
  local rc=0
  for k in "${pids[@]}"; do wait "$k" || rc=1; done
  rm -rf "$dir"
  [ "$rc" = 0 ] || die "a floor statement failed" "read psql's error above"
}

stats() { # min / median / max of the arguments
  python3 -c "import sys, statistics as s; v = sorted(map(float, sys.argv[1:])); print(f'min {v[0]:.2f}, median {s.median(v):.2f}, max {v[-1]:.2f}')" "$@"
}

echo "==> bench-minifolio-seed: scale $SCALE, $ROUNDS round(s), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%Y-%m-%dT%H:%MZ)"
seed_wall=()
floor_wall=()
ratios=()
for ((r = 1; r <= ROUNDS; r++)); do
  echo "==> round $r of $ROUNDS"
  seed_round
  if [ "$r" = 1 ]; then
    size=$(q "SELECT pg_size_pretty(sum(pg_total_relation_size(c.oid))) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname LIKE '${tenant}\_%' AND c.relkind IN ('r', 'm')")
    grep -E '^seeded tenant' "$files.log" | sed 's/^/    /'
    echo "    the tenant uses $size"
  fi
  [ "$FLOOR" = 1 ] && floor_round
  [ "$FLOOR" = 1 ] && ratios+=("$(python3 -c "import sys; print(f'{float(sys.argv[1]) / float(sys.argv[2]):.2f}')" "${seed_wall[-1]}" "${floor_wall[-1]}")")
done
rm -f "$files.log"
echo "==> seed wall s: $(stats "${seed_wall[@]}")"
if [ "${#ratios[@]}" -gt 0 ]; then
  echo "==> floor wall s (PostgreSQL's COPY of the same bytes from files, same indexes, ANALYZE): $(stats "${floor_wall[@]}")"
  echo "==> seed / floor: $(stats "${ratios[@]}") (1.00 = as fast as PostgreSQL's bulk path on this machine)"
fi

#!/usr/bin/env bash
# shellcheck shell=bash
# The first line of every test, drill, demo, gate and benchmark entry point: it runs on this
# machine's stack only, whatever the shell that started it exports. A user who exported FOLIO_URL
# and FOLIO_PASSWORD for a real FOLIO (as the README says) must be able to run `make test` or
# `make demo` next without a single request reaching that FOLIO.
#
#   . tools/local-env.sh              at the top of a script (before any cd): the script runs
#                                     again with only what tools/local-env.allow keeps
#   tools/local-env.sh [--name=NAME] CMD [ARGS...]
#                                     runs CMD so (make recipes that call node directly; NAME is
#                                     what the one line calls it, e.g. the make target)
#
# Both set FP_LOCAL_ONLY=1, on which folio-perf run (before its login) and the k6 scripts
# (lib/config.js) refuse a target that is not on 127.0.0.1 with one line.
fp_allow_file=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/local-env.allow
fp_allow=()
while IFS= read -r fp_line; do
  case $fp_line in '' | '#'*) ;; *) fp_allow+=("$fp_line") ;; esac
done <"$fp_allow_file"

# fp_kept NAME: whether the allow-list keeps the variable (a `!glob` wins over a keep).
fp_kept() {
  local g
  for g in "${fp_allow[@]}"; do
    # shellcheck disable=SC2053 # the right-hand side is a glob on purpose
    [[ $g == '!'* && $1 == ${g#!} ]] && return 1
  done
  for g in "${fp_allow[@]}"; do
    case $g in '!'* | -*) continue ;; esac
    g=${g#@}
    # shellcheck disable=SC2053 # the allow-list entry is a glob on purpose
    [[ $1 == $g ]] && return 0
  done
  return 1
}

fp_env=() fp_said=() fp_clean=1
while IFS= read -r fp_name; do
  case $fp_name in PWD | OLDPWD | SHLVL | _) continue ;; esac # bash's own
  if fp_kept "$fp_name"; then
    fp_env+=("$fp_name=${!fp_name}")
  else
    fp_clean=
    for g in "${fp_allow[@]}"; do
      # shellcheck disable=SC2053 # the allow-list entry is a glob on purpose
      [[ $g == -* && $fp_name == ${g#-} ]] && { fp_said+=("$fp_name"); break; }
    done
  fi
done < <(compgen -e)
[ "${FP_LOCAL_ONLY:-}" = 1 ] || fp_clean=

# An address it keeps (FP_INFLUX_URL, FP_PG_DSN, ...) must be this machine's: the check is
# lib/loopback.js's, through Node (only when there is one, so a fresh machine needs no Node here).
for g in "${fp_allow[@]}"; do
  [[ $g == @* ]] || continue
  for fp_name in $(compgen -e); do
    # shellcheck disable=SC2053 # the allow-list entry is a glob on purpose
    if [[ $fp_name == ${g#@} ]] && fp_kept "$fp_name"; then
      env -i "${fp_env[@]}" FP_LOCAL_ONLY=1 node "$(dirname "$fp_allow_file")/local-env.mjs" check || exit 1
      break 2
    fi
  done
done
if [ "${BASH_SOURCE[0]}" = "$0" ]; then # run as a command
  fp_entry=$1
  case $fp_entry in --name=*) fp_entry=${fp_entry#--name=}; shift ;; esac
  [ $# -gt 0 ] || { echo "usage: tools/local-env.sh [--name=NAME] CMD [ARGS...]" >&2; exit 2; }
elif [ -z "$fp_clean" ]; then
  fp_entry=$0
else
  fp_entry=
fi
if [ -n "$fp_entry" ]; then
  if [ "${#fp_said[@]}" -gt 0 ]; then
    echo "folio-perf: $(basename "$fp_entry") runs on this machine only; left out of its environment: ${fp_said[*]}" >&2
  fi
  if [ "${BASH_SOURCE[0]}" = "$0" ]; then
    exec env -i "${fp_env[@]}" FP_LOCAL_ONLY=1 "$@"
  fi
  exec env -i "${fp_env[@]}" FP_LOCAL_ONLY=1 "$BASH" "$0" "$@"
fi
unset fp_allow_file fp_allow fp_line fp_env fp_said fp_clean fp_name fp_entry g

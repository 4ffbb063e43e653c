#!/usr/bin/env bash
# `make demo`: the main job on the native stack and minifolio, never anywhere else. CICO at 1, 5, 8
# and 20 users on minifolio's lotus profile, then mod-search at 1 and 20 users, alone and while
# minifolio's second tenant (fs09000001) reindexes. That tenant name is also a real installation's:
# the reindex may only ever reach the local minifolio, so the demo keeps none of the shell's target
# settings (tools/local-env.sh) and folio-perf run refuses a target off this machine (FP_LOCAL_ONLY).
set -euo pipefail
# shellcheck source=tools/local-env.sh
. "$(dirname "$0")/local-env.sh"
cd "$(dirname "$0")/.."
. tools/defaults.sh
make --no-print-directory run PROFILE=demo MINIFOLIO_PROFILE=lotus
make --no-print-directory run WORKFLOW=search PROFILE=demo REINDEX_TENANT="$FP_DEFAULT_REINDEX_TENANT" REINDEX_REPEAT=true
# The same workflows on the Eureka platform (Kong, a sidecar per module, Keycloak joins the stack):
echo "==> demo: the same on Eureka: make run MINIFOLIO_PROFILE=sunflower PROFILE=demo (Sunflower's screens;"
echo "    trillium for Trillium's); the migration report of one release line: docs/eureka.md, Migration report"

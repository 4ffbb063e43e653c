#!/usr/bin/env bash
# `folio-perf reset` / `make reset`: minifolio's tenant back to the pre-test
# state (every loan gone, every item Available), as tools/run.sh does before
# each run and as PTF restored its database before every test. For minifolio
# on the native stack only; a real FOLIO is restored with PTF's
# checkin-checkout-db-restore.sql. The tenant is defaults.env's FP_TENANT; arguments go to
# `bin/minifolio reset` (e.g. --tenant another).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=tools/defaults.sh
. tools/defaults.sh
[ -x bin/minifolio ] || { echo "folio-perf: bin/minifolio is not built. Fix: make minifolio" >&2; exit 1; }
MINIFOLIO_DB=$(fp_minifolio_db)
export MINIFOLIO_DB
exec bin/minifolio reset --tenant "$FP_TENANT" "$@"

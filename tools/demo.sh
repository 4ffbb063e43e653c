#!/usr/bin/env bash
# `make demo` until the check-in/check-out run lands: proves the native stack end
# to end with a short k6 run whose samples go to InfluxDB, and says where to look.
set -euo pipefail
cd "$(dirname "$0")/.."
influx="http://127.0.0.1:${FP_INFLUX_PORT:-58086}"
testid="smoke-$(date -u +%Y%m%dT%H%M%SZ)"
echo "==> k6: smoke run $testid → $influx/k6"
bin/k6 run --quiet --tag "testid=$testid" -o "influxdb=$influx/k6" --env "TARGET=$influx" \
  tests/e2e/k6/influx-output.js
n=$(curl -sf "$influx/query?db=k6" --data-urlencode \
  "q=SELECT count(\"value\") FROM http_req_duration WHERE testid = '$testid'" | sed -n 's/.*"values":\[\[[^,]*,\([0-9]*\)\]\].*/\1/p')
echo "==> InfluxDB holds ${n:-0} http_req_duration samples of $testid (database k6 at $influx)"

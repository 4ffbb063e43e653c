// Command k6 is folio-perf's k6 build: stock k6 v1.8.1 plus the project's
// k6/x/sql module (same JavaScript API as grafana/xk6-sql), built with plain
// `go build` because xk6 and its build service are not reachable everywhere
// the project runs.
package main

import (
	k6cmd "go.k6.io/k6/cmd"

	// Registered for their init() side effects: "k6/x/sql" and
	// "k6/x/sql/driver/postgres".
	_ "github.com/folio-perf/folio-perf/k6/sqlmodule"
	_ "github.com/folio-perf/folio-perf/k6/sqlmodule/postgres"
	// Registered for its init(): the "influxdb-lp" output (k6/influxout).
	_ "github.com/folio-perf/folio-perf/k6/influxout"
)

func main() {
	k6cmd.Execute()
}

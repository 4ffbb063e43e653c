// Package postgres makes PostgreSQL available to k6 scripts as
// `import driver from "k6/x/sql/driver/postgres"`, backed by lib/pq (the
// driver upstream's xk6-sql-driver-postgres uses, so error texts match).
package postgres

import (
	// Registers the "postgres" database/sql driver.
	_ "github.com/lib/pq"

	"go.k6.io/k6/js/modules"

	"github.com/folio-perf/folio-perf/k6/sqlmodule"
)

// DriverName is the database/sql driver name and the description of the
// Symbol scripts receive.
const DriverName = "postgres"

func init() {
	modules.Register(sqlmodule.DriverImportPrefix+DriverName, sqlmodule.NewDriverModule(DriverName))
}

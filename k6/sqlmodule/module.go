// Package sqlmodule is folio-perf's "k6/x/sql" JavaScript module: the same
// API as grafana/xk6-sql (sql.open with a driver Symbol, db.query,
// db.queryWithTimeout, db.exec, db.execWithTimeout, db.close, snake_case
// pool options), so a script can swap in the upstream extension unchanged.
// Unlike upstream, column values are converted to plain JS values (see
// ConvertValue) and secrets in the connection string are kept out of error
// messages.
//
// Driver modules ("k6/x/sql/driver/<name>") live in sub-packages, e.g.
// sqlmodule/postgres, and register NewDriverModule from init().
package sqlmodule

import (
	"database/sql"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/grafana/sobek"
	"go.k6.io/k6/js/modules"
)

// ImportPath is the module's JavaScript import path.
const ImportPath = "k6/x/sql"

func init() {
	modules.Register(ImportPath, new(rootModule))
}

type rootModule struct{}

func (*rootModule) NewModuleInstance(vu modules.VU) modules.Instance {
	inst := &instance{vu: vu}
	inst.exports = modules.Exports{
		Default: inst,
		Named:   map[string]any{"open": inst.Open},
	}
	return inst
}

// instance is the per-VU module object: `import sql from "k6/x/sql"` gives
// it, and sql.open is its Open method.
type instance struct {
	vu      modules.VU
	exports modules.Exports
}

func (i *instance) Exports() modules.Exports { return i.exports }

// Open implements sql.open(driver, connectionString[, options]). Like
// database/sql.Open it does not connect: an unreachable database fails on the
// first query, so scripts may open in the init context.
func (i *instance) Open(driverID sobek.Value, connectionString sobek.Value, opts sobek.Value) (*Database, error) {
	name, err := driverName(driverID)
	if err != nil {
		return nil, err
	}
	if isMissing(connectionString) {
		return nil, errors.New("sql.open: missing connection string; pass e.g. " +
			"\"postgres://user:password@127.0.0.1:5432/db?sslmode=disable\" (take the password from __ENV)")
	}
	dsn, ok := connectionString.Export().(string)
	if !ok {
		return nil, fmt.Errorf("sql.open: the connection string must be a string, got %s", connectionString.ExportType())
	}
	options, err := exportOptions(opts)
	if err != nil {
		return nil, err
	}

	secrets := dsnSecrets(dsn)
	db, err := sql.Open(name, dsn)
	if err != nil {
		// lib/pq parses the DSN here; its messages may quote the DSN.
		return nil, errors.New(redact(err.Error(), secrets))
	}
	options.apply(db)
	return &Database{db: db, vu: i.vu, secrets: secrets}, nil
}

func driverName(v sobek.Value) (string, error) {
	if sym, ok := v.(*sobek.Symbol); ok {
		if name, ok := drivers.lookup(sym); ok {
			return name, nil
		}
	}
	registered := drivers.names()
	sort.Strings(registered)
	shown := "undefined"
	if v != nil {
		shown = v.String()
	}
	return "", fmt.Errorf("sql.open: unsupported database driver %s; pass the default export of a driver module, "+
		"e.g. import driver from \"k6/x/sql/driver/postgres\" (available: %s)", shown, strings.Join(registered, ", "))
}

func exportOptions(v sobek.Value) (Options, error) {
	if isMissing(v) {
		return Options{}, nil
	}
	raw, ok := v.Export().(map[string]any)
	if !ok {
		return Options{}, fmt.Errorf("sql.open: options must be an object such as { max_open_conns: 10 }, got %s", v.ExportType())
	}
	return ParseOptions(raw)
}

func isMissing(v sobek.Value) bool {
	return v == nil || sobek.IsUndefined(v) || sobek.IsNull(v)
}

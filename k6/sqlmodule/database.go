package sqlmodule

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/grafana/sobek"
	"go.k6.io/k6/js/modules"
)

// Database is what sql.open returns to a script: a pool of connections.
// Every call runs under the VU's context, so an aborted or finished test
// cancels the statements it started.
type Database struct {
	db      *sql.DB
	vu      modules.VU
	secrets []string
}

// Query implements db.query(sql, ...args): the rows as an array of plain
// objects keyed by column name ([] when there are none).
func (d *Database) Query(query string, args ...sobek.Value) (sobek.Value, error) {
	return d.query(d.ctx(), "", query, args)
}

// QueryWithTimeout implements db.queryWithTimeout(timeout, sql, ...args);
// timeout is a Go duration string such as "10s".
func (d *Database) QueryWithTimeout(timeout string, query string, args ...sobek.Value) (sobek.Value, error) {
	t, err := parseTimeout("db.queryWithTimeout", timeout)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(d.ctx(), t)
	defer cancel()
	return d.query(ctx, timeout, query, args)
}

// Exec implements db.exec(sql, ...args) for statements without rows.
func (d *Database) Exec(query string, args ...sobek.Value) (*Result, error) {
	return d.exec(d.ctx(), "", query, args)
}

// ExecWithTimeout implements db.execWithTimeout(timeout, sql, ...args).
func (d *Database) ExecWithTimeout(timeout string, query string, args ...sobek.Value) (*Result, error) {
	t, err := parseTimeout("db.execWithTimeout", timeout)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(d.ctx(), t)
	defer cancel()
	return d.exec(ctx, timeout, query, args)
}

// Close implements db.close(); later calls throw "sql: database is closed".
func (d *Database) Close() error {
	return d.fail(d.db.Close(), "")
}

func (d *Database) ctx() context.Context {
	if ctx := d.vu.Context(); ctx != nil {
		return ctx
	}
	return context.Background()
}

func (d *Database) query(ctx context.Context, timeout, query string, args []sobek.Value) (sobek.Value, error) {
	goArgs, err := exportArgs(args)
	if err != nil {
		return nil, err
	}
	rows, err := d.db.QueryContext(ctx, query, goArgs...)
	if err != nil {
		return nil, d.fail(err, timeout)
	}
	defer func() { _ = rows.Close() }()

	types, err := rows.ColumnTypes()
	if err != nil {
		return nil, d.fail(err, timeout)
	}
	names := make([]string, len(types))
	dbTypes := make([]string, len(types))
	for i, ct := range types {
		names[i] = ct.Name()
		dbTypes[i] = ct.DatabaseTypeName()
	}

	rt := d.vu.Runtime()
	values := make([]any, len(types))
	ptrs := make([]any, len(types))
	for i := range values {
		ptrs[i] = &values[i]
	}
	result := []any{}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return nil, d.fail(err, timeout)
		}
		// A plain object (not a wrapped Go map) so that Object.keys,
		// JSON.stringify and spreading behave as scripts expect.
		row := rt.NewObject()
		for i, name := range names {
			if err := row.Set(name, toJS(rt, ConvertValue(dbTypes[i], values[i]))); err != nil {
				return nil, err
			}
		}
		result = append(result, row)
	}
	if err := rows.Err(); err != nil {
		return nil, d.fail(err, timeout)
	}
	return rt.NewArray(result...), nil
}

func (d *Database) exec(ctx context.Context, timeout, query string, args []sobek.Value) (*Result, error) {
	goArgs, err := exportArgs(args)
	if err != nil {
		return nil, err
	}
	res, err := d.db.ExecContext(ctx, query, goArgs...)
	if err != nil {
		return nil, d.fail(err, timeout)
	}
	return &Result{res: res}, nil
}

// fail turns a driver error into the message a script's catch sees: the
// driver's own text (e.g. `pq: syntax error at or near "SELEC" ...`), the
// timeout when one was exceeded, and never the DSN's password.
func (d *Database) fail(err error, timeout string) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	if timeout != "" && (errors.Is(err, context.DeadlineExceeded) || isQueryCanceled(err)) {
		msg = fmt.Sprintf("%s (timeout %s exceeded)", msg, timeout)
	}
	return errors.New(redact(msg, d.secrets))
}

// isQueryCanceled reports PostgreSQL's "canceling statement due to user
// request" (SQLSTATE 57014), which is what lib/pq returns when a context
// deadline makes it cancel a running statement. Matched on the code in the
// message so that this package does not depend on one driver.
func isQueryCanceled(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "canceling statement") && strings.Contains(msg, "57014")
}

func exportArgs(args []sobek.Value) ([]any, error) {
	out := make([]any, len(args))
	for i, a := range args {
		var v any
		if a != nil {
			v = a.Export()
		}
		if ab, ok := v.(sobek.ArrayBuffer); ok {
			v = ab.Bytes()
		}
		conv, err := ConvertArg(i+1, v)
		if err != nil {
			return nil, err
		}
		out[i] = conv
	}
	return out, nil
}

// toJS is where bytea ([]byte after ConvertValue) becomes an ArrayBuffer;
// everything else maps to a JS primitive through sobek.
func toJS(rt *sobek.Runtime, v any) sobek.Value {
	if b, ok := v.([]byte); ok {
		return rt.ToValue(rt.NewArrayBuffer(b))
	}
	return rt.ToValue(v)
}

// Result is what db.exec returns: rowsAffected() and lastInsertId().
type Result struct{ res sql.Result }

// RowsAffected implements result.rowsAffected().
func (r *Result) RowsAffected() (int64, error) { return r.res.RowsAffected() }

// LastInsertId implements result.lastInsertId(). PostgreSQL has no such
// thing, so with lib/pq this throws; the message says what to do instead.
func (r *Result) LastInsertId() (int64, error) {
	id, err := r.res.LastInsertId()
	if err != nil {
		return 0, fmt.Errorf("%v; in PostgreSQL use INSERT ... RETURNING id with db.query", err)
	}
	return id, nil
}

package storage

import (
	"strings"
	"sync"

	"github.com/folio-perf/folio-perf/minifolio/internal/cql"
)

// translated is a CQL query turned into SQL for one table.
type translated = cql.SQL

// FieldExpr is the SQL expression of a jsonb path, the same for indexes and
// queries so that PostgreSQL matches them (RMB: lower(f_unaccent(...))).
func FieldExpr(path string) string { return cql.FieldExpr(path) }

// cqlTables caches the translator's view of each *Table (WithoutIndexes
// copies are distinct pointers, so a profile's table gets its own entry).
var cqlTables sync.Map // *Table → cql.Table

func (t *Table) cqlTable() cql.Table {
	if v, ok := cqlTables.Load(t); ok {
		return v.(cql.Table)
	}
	ct := cql.Table{Name: t.Name, Columns: map[string]string{}, Indexed: map[string]bool{}}
	for _, f := range t.FKs {
		ct.Columns[f.Field] = f.Column()
	}
	for _, ix := range t.Indexes {
		if ix.Where == "" {
			ct.Indexed[ix.Field] = true
		}
	}
	cqlTables.Store(t, ct)
	return ct
}

// translate turns CQL into SQL for t; an empty query matches everything
// (RMB lists the whole table when query is absent).
func translate(t *Table, q string) (translated, error) {
	if strings.TrimSpace(q) == "" {
		return translated{}, nil
	}
	return cql.ToSQL(q, t.cqlTable(), 1)
}

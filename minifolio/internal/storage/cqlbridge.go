package storage

import (
	"errors"
	"regexp"
	"strconv"
	"strings"
)

// translated is a CQL query turned into SQL for one table.
type translated struct {
	Where     string
	OrderBy   string
	Args      []any
	Unindexed []string // jsonb fields the query filters on without an index
}

// FieldExpr is the SQL expression of a jsonb path, the same for indexes and
// queries so that PostgreSQL matches them (RMB: lower(f_unaccent(...))).
// INTERIM until package cql lands; then this delegates to cql.FieldExpr.
func FieldExpr(path string) string {
	parts := strings.Split(path, ".")
	e := "jsonb"
	for i, p := range parts {
		op := "->"
		if i == len(parts)-1 {
			op = "->>"
		}
		e += op + "'" + strings.ReplaceAll(p, "'", "''") + "'"
	}
	return "lower(f_unaccent(" + e + "))"
}

var interimTerm = regexp.MustCompile(`^\s*\(?\s*([A-Za-z][A-Za-z0-9_.]*)\s*==\s*"?([^"()]*?)"?\s*\)?\s*$`)

// translate: INTERIM (exact-match conjunctions only) until package cql lands.
func translate(t *Table, q string) (translated, error) {
	q = strings.TrimSpace(q)
	if q == "" || q == "cql.allRecords=1" {
		return translated{}, nil
	}
	var tr translated
	var conds []string
	for _, part := range regexp.MustCompile(`(?i)\s+and\s+`).Split(strings.Trim(q, "()"), -1) {
		m := interimTerm.FindStringSubmatch(part)
		if m == nil {
			return translated{}, errors.New("unsupported CQL: " + q)
		}
		tr.Args = append(tr.Args, strings.ToLower(m[2]))
		n := len(tr.Args)
		if col, ok := t.FKColumn(m[1]); ok || m[1] == "id" {
			if !ok {
				col = "id"
			}
			conds = append(conds, col+"::text = $"+strconv.Itoa(n))
			continue
		}
		conds = append(conds, FieldExpr(m[1])+" = f_unaccent($"+strconv.Itoa(n)+")")
		if !t.Indexed(m[1]) {
			tr.Unindexed = append(tr.Unindexed, m[1])
		}
	}
	tr.Where = strings.Join(conds, " AND ")
	return tr, nil
}

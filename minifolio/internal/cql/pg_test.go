package cql

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// The translated SQL run on real PostgreSQL: the proof that the
// semantics (folding, escaping, word matching, uuid handling, NOT, sort)
// hold, and that PostgreSQL uses an index built with IndexDDL.

const (
	u1 = "11111111-1111-4111-8111-111111111111"
	u2 = "11111111-2222-4222-8222-222222222222"
	u3 = "33333333-3333-4333-8333-333333333333"
	u4 = "44444444-4444-4444-8444-444444444444"
	u5 = "55555555-5555-4555-8555-555555555555"
	u6 = "66666666-6666-4666-8666-666666666666"
	h1 = "99999999-9999-4999-8999-999999999999"
)

var pgRows = []struct{ label, id, json string }{
	{"r1", u1, `{"barcode":"ABC-100","title":"Harry Potter and the Philosopher's Stone","status":{"name":"Available"},
		"position":2,"dueDate":"2026-11-01T10:00:00Z","active":true,"name":"Müller","holdingsRecordId":"` + h1 + `"}`},
	{"r2", u2, `{"barcode":"abc-101","title":"The Potter's Harry","status":{"name":"Checked out"},
		"position":10,"dueDate":"2026-12-01T10:00:00Z","active":false,"name":"Mueller"}`},
	{"r3", u3, `{"barcode":"X%Y_Z","title":"Fusion: pepper & salt","status":{"name":"In transit"},"position":9,"name":"muller"}`},
	{"r4", u4, `{"barcode":"abc*lit","status":{"name":"Closed"}}`},
	{"r5", u5, `{"barcode":"Zed","title":"Harrypotter","status":{"name":"Available"},"active":true,"name":"O'Brien","email":"o.brien@example.org"}`},
	{"r6", u6, `{"barcode":"a\\b","title":"⒜ stuff"}`},
}

var pgCases = []struct {
	query string
	want  []string // labels; in this order when ordered
	order bool
}{
	{`barcode=="abc-100"`, []string{"r1"}, false},
	{`barcode=="ABC*"`, []string{"r1", "r2", "r4"}, false},
	{`barcode=="abc\*lit"`, []string{"r4"}, false},
	{`barcode=="X%Y_Z"`, []string{"r3"}, false},
	{`barcode=="x%*"`, []string{"r3"}, false},
	{`barcode=="_*"`, nil, false}, // a literal _, not LIKE's any-character
	{`barcode=="a?c-10?"`, []string{"r1", "r2"}, false},
	{`barcode=="a\\b"`, []string{"r6"}, false},
	{`name==muller`, []string{"r1", "r3"}, false}, // accents removed, case folded; Mueller differs
	{`name=="o'brien"`, []string{"r5"}, false},
	{`title=potter`, []string{"r1", "r2"}, false}, // a word, so not "Harrypotter"
	{`title="harry potter"`, []string{"r1"}, false},
	{`title adj "potter's harry"`, []string{"r2"}, false},
	{`title all "harry potter"`, []string{"r1", "r2"}, false},
	{`title any "fusion harrypotter"`, []string{"r3", "r5"}, false},
	{`title=pep*`, []string{"r3"}, false},
	{`title adj "pepper salt"`, []string{"r3"}, false}, // punctuation between words is skipped
	{`title adj "pepper-salt"`, nil, false},            // a hyphenated word stays one word
	{`barcode=abc-100`, []string{"r1"}, false},
	{`barcode=abc`, []string{"r1", "r2", "r4"}, false}, // "abc" is a word of abc-100, abc-101, abc*lit
	// PostgreSQL's 'simple' parser: an e-mail address is one word.
	{`email=example.org`, nil, false},
	{`email=brien`, nil, false},
	{`email="o.brien@example.org"`, []string{"r5"}, false},
	{`email=o.brien*`, []string{"r5"}, false},
	{`title="⒜"`, []string{"r6"}, false}, // unaccent expands it to "(a)": stays literal in the regex
	{`title=""`, []string{"r1", "r2", "r3", "r5", "r6"}, false},
	{`title="harry potter" or title=Fusion`, []string{"r1", "r3"}, false},
	{`status.name<>Available`, []string{"r2", "r3", "r4"}, false},
	{`cql.allRecords=1 NOT status.name==Available`, []string{"r2", "r3", "r4", "r6"}, false},
	{`status.name==Available not active==true`, nil, false},
	{`position>19`, []string{"r1", "r3"}, false}, // strings, as in RMB: "2" > "19"
	{`position >/number 9`, []string{"r2"}, false},
	{`position </number 10`, []string{"r1", "r3"}, false},
	{`position ==/number 9.0`, []string{"r3"}, false},
	{`title=*`, []string{"r1", "r2", "r3", "r4", "r5", "r6"}, false},
	{`cql.allRecords=1 NOT title=""`, []string{"r4"}, false},
	{`id<>"11111111*"`, []string{"r3", "r4", "r5", "r6"}, false},
	{`id>` + u4, []string{"r5", "r6"}, false},
	{`dueDate<"2026-11-15"`, []string{"r1"}, false},
	{`active=="true"`, []string{"r1", "r5"}, false},
	{`id==` + u3, []string{"r3"}, false},
	{`id==` + strings.ToUpper(u3), []string{"r3"}, false},
	{`id==notauuid or barcode==zed`, []string{"r5"}, false},
	{`id<>notauuid`, []string{"r1", "r2", "r3", "r4", "r5", "r6"}, false},
	{`id<>` + u1, []string{"r2", "r3", "r4", "r5", "r6"}, false},
	{`id=="11111111-1*"`, []string{"r1"}, false},
	{`id=="11111111*"`, []string{"r1", "r2"}, false},
	{`id==` + u1 + ` or id==` + u3 + ` or id==bogus`, []string{"r1", "r3"}, false},
	{`holdingsRecordId==` + h1, []string{"r1"}, false},
	{`holdingsRecordId=*`, []string{"r1"}, false},
	{`query=(barcode==zed)`, []string{"r5"}, false},
	{`(barcode==zed or barcode=="abc-100") sortby barcode/sort.descending`, []string{"r5", "r1"}, true},
	{`position >/number 0 sortby position/number/sort.descending`, []string{"r2", "r3", "r1"}, true},
	{`position >/number 0 sortby position/number`, []string{"r1", "r3", "r2"}, true},
	{`position >/number 0 sortby position`, []string{"r2", "r1", "r3"}, true}, // as text: "10" < "2" < "9"
	{`cql.allRecords=1 sortby id/sort.descending`, []string{"r6", "r5", "r4", "r3", "r2", "r1"}, true},
}

// pgConn connects to FP_PG_DSN and makes a private schema with table t.
func pgConn(t *testing.T) (*pgx.Conn, string) {
	t.Helper()
	dsn := os.Getenv("FP_PG_DSN")
	if dsn == "" {
		if os.Getenv("FP_REQUIRE_STACK") != "" {
			t.Fatal("FP_PG_DSN is not set but FP_REQUIRE_STACK is: start the stack (make stack-up) and export FP_PG_DSN")
		}
		t.Skip("FP_PG_DSN not set (run `make stack-up` and export FP_PG_DSN to run this test)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatalf("connect FP_PG_DSN: %v", err)
	}
	schema := fmt.Sprintf("cqltest_%d_%d", os.Getpid(), time.Now().UnixNano()%1e9)
	t.Cleanup(func() {
		_, _ = conn.Exec(context.Background(), "DROP SCHEMA IF EXISTS "+schema+" CASCADE")
		conn.Close(context.Background())
	})
	for _, s := range []string{
		"CREATE EXTENSION IF NOT EXISTS unaccent",
		UnaccentFunctionSQL,
		FullTextFunctionsSQL,
		"CREATE SCHEMA " + schema,
		"CREATE TABLE " + schema + ".t (id uuid PRIMARY KEY, jsonb jsonb NOT NULL, holdingsrecordid uuid)",
		IndexDDL(schema, "t", "barcode", true),
	} {
		if _, err := conn.Exec(ctx, s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	for _, r := range pgRows {
		if _, err := conn.Exec(ctx, "INSERT INTO "+schema+".t (id, jsonb, holdingsrecordid) VALUES ($1, $2::jsonb, ($2::jsonb->>'holdingsRecordId')::uuid)",
			r.id, r.json); err != nil {
			t.Fatalf("insert %s: %v", r.label, err)
		}
	}
	return conn, schema
}

func TestSQLOnPostgreSQL(t *testing.T) {
	conn, schema := pgConn(t)
	ctx := context.Background()
	labels := map[string]string{}
	for _, r := range pgRows {
		labels[r.id] = r.label
	}
	tbl := Table{Name: "t", Columns: map[string]string{"holdingsRecordId": "holdingsrecordid"}, Indexed: set("barcode")}
	for _, c := range pgCases {
		s, err := ToSQL(c.query, tbl, 1)
		if err != nil {
			t.Errorf("%s: %v", c.query, err)
			continue
		}
		sql := "SELECT id::text FROM " + schema + ".t WHERE " + s.Where
		if s.OrderBy != "" {
			sql += " ORDER BY " + s.OrderBy
		}
		rows, err := conn.Query(ctx, sql, s.Args...)
		if err != nil {
			t.Errorf("%s: %v\n%s", c.query, err, sql)
			continue
		}
		ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Errorf("%s: %v\n%s %v", c.query, err, sql, s.Args)
			continue
		}
		var got []string
		for _, id := range ids {
			got = append(got, labels[id])
		}
		if !c.order {
			sort.Strings(got)
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: matched %v, want %v\n%s %v", c.query, got, c.want, sql, s.Args)
		}
	}
}

// TestIndexIsUsed proves FieldExpr in the query equals the expression
// IndexDDL indexed: with sequential scans priced out, PostgreSQL picks the
// index for == and for a prefix match.
func TestIndexIsUsed(t *testing.T) {
	conn, schema := pgConn(t)
	ctx := context.Background()
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "SET LOCAL enable_seqscan = off"); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{`barcode=="abc-100"`, `barcode=="abc*"`, `barcode=="nope" or barcode==Zed`} {
		s, err := ToSQL(q, Table{Indexed: set("barcode")}, 1)
		if err != nil {
			t.Fatal(err)
		}
		rows, err := tx.Query(ctx, "EXPLAIN SELECT id FROM "+schema+".t WHERE "+s.Where, s.Args...)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Fatal(err)
		}
		plan := strings.Join(lines, "\n")
		if !strings.Contains(plan, "t_barcode_idx") {
			t.Errorf("%s: plan does not use t_barcode_idx:\n%s", q, plan)
		}
	}
	// A pooled driver reuses prepared statements, and after a few runs
	// PostgreSQL may switch to a generic plan that has no parameter values:
	// exact matches must still use the index then.
	s, err := ToSQL(`barcode=="abc-100"`, Table{Indexed: set("barcode")}, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, stmt := range []string{
		"SET LOCAL plan_cache_mode = force_generic_plan",
		"PREPARE cql_generic(text) AS SELECT id FROM " + schema + ".t WHERE " + s.Where,
	} {
		if _, err := tx.Exec(ctx, stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	rows, err := tx.Query(ctx, "EXPLAIN EXECUTE cql_generic('abc-100')")
	if err != nil {
		t.Fatal(err)
	}
	lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	plan := strings.Join(lines, "\n")
	if !strings.Contains(plan, "t_barcode_idx") || !strings.Contains(plan, "$1") {
		t.Errorf("generic plan of == does not use t_barcode_idx with $1:\n%s", plan)
	}
}

// TestNoSQLErrors: whatever a client sends, the translator either refuses
// it with *Error (a 400) or produces SQL that PostgreSQL runs; a SQL error
// would be a 500. Random queries over awkward characters (regex and LIKE
// metacharacters, quotes, backslashes, characters unaccent expands) and
// every relation/modifier combination.
func TestNoSQLErrors(t *testing.T) {
	conn, schema := pgConn(t)
	ctx := context.Background()
	tbl := Table{Columns: map[string]string{"holdingsRecordId": "holdingsrecordid"}, Indexed: set("barcode")}
	rnd := rand.New(rand.NewPCG(3, 14))
	pick := func(xs ...string) string { return xs[rnd.IntN(len(xs))] }
	value := func() string {
		if rnd.IntN(5) == 0 {
			return pick(u1, "11111111*", "*", "", "1e3", "-2.5", "9")
		}
		var b strings.Builder
		for n := rnd.IntN(8); n >= 0; n-- {
			b.WriteString(pick("a", "Harry", " ", "*", "?", "\\*", "\\\\", "\\\"", "'", "%", "_", "(", ")", "[", "]",
				"{", ".", "$", "|", "+", "-", "&", "⒜", "⑴", "é", "€", "1", "^", "\\^", "\t"))
		}
		return `"` + b.String() + `"`
	}
	var term func(depth int) string
	term = func(depth int) string {
		if depth > 0 && rnd.IntN(3) == 0 {
			return "(" + term(depth-1) + " " + pick("and", "or", "not", "AND") + " " + term(depth-1) + ")"
		}
		return pick("title", "barcode", "status.name", "id", "holdingsRecordId", "position", "cql.allRecords") + " " +
			pick("=", "==", "<>", "<", ">", "<=", ">=", "all", "any", "adj", "==/number", "=/number", "<>/number", ">/number") +
			" " + value()
	}
	ran := 0
	for i := 0; i < 1000; i++ {
		q := term(3)
		if rnd.IntN(3) == 0 {
			q += " sortby " + pick("title", "position/number/sort.descending", "id", "barcode/sort.ascending")
		}
		s, err := ToSQL(q, tbl, 1)
		if err != nil {
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("%s: %T %v, want *Error", q, err, err)
			}
			continue
		}
		sql := "SELECT count(*) FROM " + schema + ".t WHERE " + s.Where
		if s.OrderBy != "" {
			sql = "SELECT id FROM " + schema + ".t WHERE " + s.Where + " ORDER BY " + s.OrderBy
		}
		rows, err := conn.Query(ctx, sql, s.Args...)
		if err == nil {
			for rows.Next() {
			}
			err = rows.Err()
		}
		if err != nil {
			t.Errorf("%s: PostgreSQL error %v\n%s %q", q, err, sql, s.Args)
		}
		ran++
	}
	t.Logf("%d of 1000 random queries translated and ran on PostgreSQL", ran)
	// The generator must exercise the SQL side, not only the refusals.
	if ran < 300 {
		t.Fatalf("only %d of 1000 random queries translated; the generator no longer exercises PostgreSQL", ran)
	}
}

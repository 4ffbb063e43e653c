package cql

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// Example values substituted into the workflow queries of PTF's CICO and mod-search
// plans (folio-org/perf-testing : workflows-scripts/).
const (
	userID     = "a1b2c3d4-0000-4000-8000-000000000001"
	userBC     = "21734567"
	groupID    = "503a81cd-6c26-400f-b620-14c08943697c"
	spID       = "7068e104-aa14-4f30-a8bf-71f71cc15e07"
	itemBC     = "10101"
	itemID     = "0b96a642-5e7f-452d-9cae-9cee66c9a892"
	loanID     = "f3b1a5c6-7d8e-4f90-a1b2-c3d4e5f60718"
	lostPolicy = "ed892c0e-52e0-4cd9-8133-c0ef07b4a709"
)

// Tables shaped like the FOLIO tables the workflows query: the uuid
// columns RMB adds for declared foreign keys, and the indexed fields.
var (
	usersT = Table{Name: "users", Columns: map[string]string{"patronGroup": "patrongroup"},
		Indexed: set("barcode", "username", "externalSystemId", "active")}
	configT = Table{Name: "config_data", Indexed: set("module", "configName")}
	groupsT = Table{Name: "groups", Indexed: set("group")}
	// accounts and loans keep userId/itemId/loanId in jsonb (no FK column).
	accountsT = Table{Name: "accounts", Indexed: set("userId", "loanId", "status.name")}
	loanT     = Table{Name: "loan", Indexed: set("userId", "itemId", "status.name")}
	requestT  = Table{Name: "request", Indexed: set("requesterId", "itemId", "status")}
	proxyT    = Table{Name: "proxyfor", Indexed: set("userId", "proxyUserId")}
	blocksT   = Table{Name: "manualblocks", Indexed: set("userId")}
	itemT     = Table{Name: "item", Columns: map[string]string{"holdingsRecordId": "holdingsrecordid"},
		Indexed: set("barcode", "status.name")}
	policyT = Table{Name: "lost_item_fee_policy"}
)

func set(fields ...string) map[string]bool {
	m := map[string]bool{}
	for _, f := range fields {
		m[f] = true
	}
	return m
}

// f is FieldExpr; p(n) is bound parameter n folded like the field.
func f(path string) string { return FieldExpr(path) }
func p(n int) string       { return fmt.Sprintf("lower(public.f_unaccent($%d))", n) }

// ft is RMB's full-text condition (cql2pgjson's queryByFt) on path with the
// term bound as $n: fn is tsquery_phrase (= and adj), tsquery_and (all) or
// tsquery_or (any).
func ft(path, fn string, n int) string {
	return fmt.Sprintf("public.get_tsvector(public.f_unaccent(%s)) @@ public.%s(public.f_unaccent($%d))", jsonText(path), fn, n)
}

type sqlCase struct {
	name      string
	table     Table
	query     string
	where     string
	orderBy   string
	args      []any
	unindexed []string
}

func args(v ...any) []any { return v }

var sqlCases = []sqlCase{
	// One check-out of the Orchid plan, in order.
	{"co4 config other_settings", configT, `(module==CHECKOUT and configName==other_settings)`,
		"(" + f("module") + " = " + p(1) + " AND " + f("configName") + " = " + p(2) + ")", "",
		args("CHECKOUT", "other_settings"), nil},
	{"co5 config profile_pictures", configT, `(module==USERS and configName==profile_pictures)`,
		"(" + f("module") + " = " + p(1) + " AND " + f("configName") + " = " + p(2) + ")", "",
		args("USERS", "profile_pictures"), nil},
	{"co8 user lookup by barcode; id==barcode matches nothing", usersT,
		`(barcode=="` + userBC + `" OR externalSystemId=="` + userBC + `" OR id=="` + userBC + `" OR username=="` + userBC + `")`,
		"(((" + f("barcode") + " = " + p(1) + " OR " + f("externalSystemId") + " = " + p(2) + ") OR FALSE) OR " +
			f("username") + " = " + p(3) + ")", "",
		args(userBC, userBC, userBC), nil},
	{"co16 group by id", groupsT, `(id==` + groupID + `)`, "id = $1", "", args(groupID), nil},
	{"co17 open accounts", accountsT, `(userId==` + userID + ` and status.name<>Closed)`,
		"(" + f("userId") + " = " + p(1) + " AND " + f("status.name") + " <> " + p(2) + ")", "",
		args(userID, "Closed"), nil},
	{"co18 open loans", loanT, `(userId==` + userID + ` and status.name<>Closed)`,
		"(" + f("userId") + " = " + p(1) + " AND " + f("status.name") + " <> " + p(2) + ")", "",
		args(userID, "Closed"), nil},
	{"co19 open requests", requestT, `(requesterId==` + userID + ` and status=="Open")`,
		"(" + f("requesterId") + " = " + p(1) + " AND " + f("status") + " = " + p(2) + ")", "",
		args(userID, "Open"), nil},
	{"co20 PTF quirk query=(userId==X)", proxyT, `query=(userId==` + userID + `)`,
		f("userId") + " = " + p(1), "", args(userID), nil},
	{"co21 PTF quirk query=(proxyUserId==X)", proxyT, `query=(proxyUserId==` + userID + `)`,
		f("proxyUserId") + " = " + p(1), "", args(userID), nil},
	{"co23 manual blocks", blocksT, `userId==` + userID, f("userId") + " = " + p(1), "", args(userID), nil},
	{"co29 awaiting pickup; = on a non-column field is word match", requestT,
		`(requesterId==` + userID + ` and pickupServicePointId=` + spID + ` and status=="Open - Awaiting pickup")`,
		"((" + f("requesterId") + " = " + p(1) + " AND " +
			ft("pickupServicePointId", "tsquery_phrase", 2) + ") AND " + f("status") + " = " + p(3) + ")", "",
		args(userID, spID, "Open - Awaiting pickup"), []string{"pickupServicePointId"}},
	{"co31 item by barcode", itemT, `barcode=="` + itemBC + `"`, f("barcode") + " = " + p(1), "", args(itemBC), nil},
	{"co38 open requests after check-out", requestT, `(requesterId==` + userID + ` and status=="Open")`,
		"(" + f("requesterId") + " = " + p(1) + " AND " + f("status") + " = " + p(2) + ")", "",
		args(userID, "Open"), nil},

	// One check-in of the Orchid plan.
	{"ci1 config with =", configT, `(module=CHECKOUT and configName=other_settings)`,
		"(" + ft("module", "tsquery_phrase", 1) + " AND " + ft("configName", "tsquery_phrase", 2) + ")", "",
		args("CHECKOUT", "other_settings"), nil},
	{"ci12 checked-out item", itemT, `barcode=="20202"`, f("barcode") + " = " + p(1), "", args("20202"), nil},
	{"ci17 requests awaiting", requestT,
		`(itemId==` + itemID + ` and (status=="Open - Awaiting pickup" or status=="Open - Awaiting delivery"))`,
		"(" + f("itemId") + " = " + p(1) + " AND (" + f("status") + " = " + p(2) + " OR " + f("status") + " = " + p(3) + "))", "",
		args(itemID, "Open - Awaiting pickup", "Open - Awaiting delivery"), nil},
	{"ci18 accounts of the loan", accountsT, `loanId=="` + loanID + `"`, f("loanId") + " = " + p(1), "", args(loanID), nil},
	{"ci18 loan id NOT_FOUND (no loan) still a string match", accountsT, `loanId=="NOT_FOUND"`,
		f("loanId") + " = " + p(1), "", args("NOT_FOUND"), nil},
	{"ci22 lost item policy", policyT, `id==` + lostPolicy, "id = $1", "", args(lostPolicy), nil},
	{"ci22 policy id NOT_FOUND matches nothing", policyT, `id==NOT_FOUND`, "FALSE", "", nil, nil},
	{"ci23 accounts open or closed", accountsT,
		`(userId==` + userID + ` and itemId==` + itemID + `) AND (status.name=="Open" OR status.name=="Closed")`,
		"((" + f("userId") + " = " + p(1) + " AND " + f("itemId") + " = " + p(2) + ") AND (" +
			f("status.name") + " = " + p(3) + " OR " + f("status.name") + " = " + p(4) + "))", "",
		args(userID, itemID, "Open", "Closed"), []string{"itemId"}},
	{"ci24 accounts of user, item and loan", accountsT,
		`(userId==` + userID + ` and itemId==` + itemID + ` and loanId==` + loanID + `) and status.name=="Open"`,
		"(((" + f("userId") + " = " + p(1) + " AND " + f("itemId") + " = " + p(2) + ") AND " +
			f("loanId") + " = " + p(3) + ") AND " + f("status.name") + " = " + p(4) + ")", "",
		args(userID, itemID, loanID, "Open"), []string{"itemId"}},

	// Honeysuckle-era variants.
	{"hs groups all sorted", groupsT, `cql.allRecords=1 sortby group`, "TRUE",
		f("group"), nil, nil},
	{"hs active users", usersT, `active=="true"`, f("active") + " = " + p(1), "", args("true"), nil},
	{"hs loan policy by quoted id", policyT, `(id=="` + lostPolicy + `")`, "id = $1", "", args(lostPolicy), nil},

	// Relations and masking.
	{"unquoted run is one term", Table{}, `keyword all fusion pepper`,
		ft("keyword", "tsquery_and", 1), "", args("fusion pepper"), []string{"keyword"}},
	{"any", Table{}, `title any "harry ron"`,
		ft("title", "tsquery_or", 1), "", args("harry ron"), []string{"title"}},
	{"adj", Table{}, `title adj "harry potter"`, ft("title", "tsquery_phrase", 1), "", args("harry potter"), []string{"title"}},
	{"= is adjacency like adj", Table{}, `title="harry potter"`, ft("title", "tsquery_phrase", 1), "", args("harry potter"), []string{"title"}},
	{"= with right truncation", Table{}, `title=harr*`, ft("title", "tsquery_phrase", 1), "", args("harr*"), []string{"title"}},
	{"= masked backslash stays doubled", Table{}, `title="a\\b"`, ft("title", "tsquery_phrase", 1), "", args(`a\\b`), []string{"title"}},
	{"= empty term: field present", Table{}, `title=""`, "jsonb->>'title' ~ ''", "", nil, []string{"title"}},
	{"== prefix becomes LIKE", itemT, `barcode=="abc*"`, f("barcode") + " LIKE " + p(1), "", args("abc%"), nil},
	{"== LIKE escapes % _ \\ and maps ? to _", itemT, `barcode=="a%b_c\\d?*"`,
		f("barcode") + " LIKE " + p(1), "", args(`a\%b\_c\\d_%`), nil},
	{"== escaped star is literal", itemT, `barcode=="abc\*"`, f("barcode") + " = " + p(1), "", args("abc*"), nil},
	{"== empty string", itemT, `barcode==""`, f("barcode") + " = " + p(1), "", args(""), nil},
	{"<> with wildcard is NOT LIKE", itemT, `status.name<>"Check*"`, f("status.name") + " NOT LIKE " + p(1), "", args("Check%"), nil},
	{"quote inside a term is data", usersT, `username=="O\"Brien's"`, f("username") + " = " + p(1), "", args(`O"Brien's`), nil},
	{"id=* matches all", itemT, `id=*`, "id IS NOT NULL", "", nil, nil},
	{"id right truncation is a range", itemT, `id=="0b96a642-5e*"`, "id BETWEEN $1 AND $2", "",
		args("0b96a642-5e00-0000-0000-000000000000", "0b96a642-5eff-ffff-ffff-ffffffffffff"), nil},
	{"id <> non-uuid matches every row", itemT, `id<>` + itemBC, "id IS NOT NULL", "", nil, nil},
	{"id = behaves like ==", itemT, `id=` + strings.ToUpper(itemID), "id = $1", "", args(itemID), nil},
	{"id <> with truncation is outside the range", itemT, `id<>"0b96a642-5e*"`, "(id < $1 OR id > $2)", "",
		args("0b96a642-5e00-0000-0000-000000000000", "0b96a642-5eff-ffff-ffff-ffffffffffff"), nil},
	{"id == empty is every record", itemT, `id==""`, "id IS NOT NULL", "", nil, nil},
	{"id < with a UUID", itemT, `id<` + itemID, "id < $1", "", args(itemID), nil},
	{"foreign-key column", itemT, `holdingsRecordId==` + groupID, "holdingsrecordid = $1", "", args(groupID), nil},
	{"> without /number compares strings, as RMB", requestT, `position>9`, f("position") + " > " + p(1), "", args("9"), []string{"position"}},
	{">/number compares JSON numbers", requestT, `position >/number 9`, "jsonb->'position' > $1::text::jsonb", "", args("9"), []string{"position"}},
	{"==/number", requestT, `position ==/number 3.40`, "jsonb->'position' = $1::text::jsonb", "", args("3.40"), []string{"position"}},
	{"= lone star matches every record", Table{}, `title=*`, "TRUE", "", nil, []string{"title"}},
	{"= drops stand-alone star words", Table{}, `title="harry *"`, ft("title", "tsquery_phrase", 1), "", args("harry"), []string{"title"}},
	{"default-restating modifiers are accepted", usersT, `barcode ==/ignoreCase/masked abc`, f("barcode") + " = " + p(1), "", args("abc"), nil},
	{"date compares as text", loanT, `dueDate<"2026-11-22T00:00:00Z"`, f("dueDate") + " < " + p(1), "",
		args("2026-11-22T00:00:00Z"), []string{"dueDate"}},

	// Booleans: left-associative, one precedence, case-insensitive.
	{"not keeps records lacking the field", itemT, `cql.allRecords=1 NOT status.name==Closed`,
		"(TRUE AND (" + f("status.name") + " = " + p(1) + ") IS NOT TRUE)", "", args("Closed"), nil},
	{"or then and: left to right", Table{}, `a==1 or b==2 and c==3`,
		"((" + f("a") + " = " + p(1) + " OR " + f("b") + " = " + p(2) + ") AND " + f("c") + " = " + p(3) + ")", "",
		args("1", "2", "3"), []string{"a", "b", "c"}},
	{"and then or: left to right", Table{}, `a==1 AND b==2 Or c==3`,
		"((" + f("a") + " = " + p(1) + " AND " + f("b") + " = " + p(2) + ") OR " + f("c") + " = " + p(3) + ")", "",
		args("1", "2", "3"), []string{"a", "b", "c"}},
	{"index = (subquery) inherits the index", Table{}, `subjects = ("History" OR "Music")`,
		"(" + ft("subjects", "tsquery_phrase", 1) + " OR " + ft("subjects", "tsquery_phrase", 2) + ")", "", args("History", "Music"), []string{"subjects"}},
	{"CQL.ALLRECORDS is case-insensitive", Table{}, `CQL.ALLRECORDS=1`, "TRUE", "", nil, nil},

	// sortby.
	{"sortby two keys, descending", loanT, `status.name==Open sortby dueDate/sort.descending id`,
		f("status.name") + " = " + p(1),
		f("dueDate") + " DESC, id", args("Open"), nil},
	{"sortby /number", requestT, `itemId==` + itemID + ` sortby position/number`,
		f("itemId") + " = " + p(1), "jsonb->'position'", args(itemID), nil},
}

func TestTranslate(t *testing.T) {
	if len(sqlCases) < 40 {
		t.Fatalf("only %d cases; the acceptance asks for at least 40", len(sqlCases))
	}
	for _, c := range sqlCases {
		t.Run(c.name, func(t *testing.T) {
			got, err := ToSQL(c.query, c.table, 1)
			if err != nil {
				t.Fatalf("ToSQL(%s): %v", c.query, err)
			}
			if got.Where != c.where {
				t.Errorf("where\n got: %s\nwant: %s", got.Where, c.where)
			}
			if got.OrderBy != c.orderBy {
				t.Errorf("order by\n got: %s\nwant: %s", got.OrderBy, c.orderBy)
			}
			if !reflect.DeepEqual(got.Args, c.args) {
				t.Errorf("args got %#v, want %#v", got.Args, c.args)
			}
			if !reflect.DeepEqual(got.Unindexed, c.unindexed) {
				t.Errorf("unindexed got %v, want %v", got.Unindexed, c.unindexed)
			}
		})
	}
}

func TestFirstArgOffset(t *testing.T) {
	got, err := ToSQL(`(userId==`+userID+` and status.name<>Closed)`, loanT, 3)
	if err != nil {
		t.Fatal(err)
	}
	want := "(" + f("userId") + " = " + p(3) + " AND " + f("status.name") + " <> " + p(4) + ")"
	if got.Where != want || len(got.Args) != 2 {
		t.Fatalf("got %s %v, want %s", got.Where, got.Args, want)
	}
}

func TestFieldExpr(t *testing.T) {
	if got, want := FieldExpr("status.name"), "lower(public.f_unaccent(jsonb->'status'->>'name'))"; got != want {
		t.Fatalf("FieldExpr = %s, want %s", got, want)
	}
	if got, want := IndexDDL("fs_mod_x", "item", "status.name", true),
		"CREATE UNIQUE INDEX IF NOT EXISTS item_status_name_idx ON fs_mod_x.item ((lower(public.f_unaccent(jsonb->'status'->>'name'))) text_pattern_ops)"; got != want {
		t.Fatalf("IndexDDL =\n %s\nwant\n %s", got, want)
	}
}

func TestParseTree(t *testing.T) {
	q, err := Parse(`query=(userId==X)`)
	if err != nil {
		t.Fatal(err)
	}
	want := &Term{Index: "userId", Relation: "==", Value: "X"}
	if !reflect.DeepEqual(q.Root, want) {
		t.Fatalf("got %#v, want %#v", q.Root, want)
	}
	q, err = Parse(`title=/number 5 sortby a/sort.descending b`)
	if err != nil {
		t.Fatal(err)
	}
	wantQ := &Query{
		Root: &Term{Index: "title", Relation: "=", Modifiers: []Modifier{{Name: "number"}}, Value: "5"},
		Sort: []SortKey{{Index: "a", Modifiers: []Modifier{{Name: "sort.descending"}}}, {Index: "b"}},
	}
	if !reflect.DeepEqual(q, wantQ) {
		t.Fatalf("got %#v, want %#v", q, wantQ)
	}
	// A keyword may be an index or a term, as in cql-java.
	q, err = Parse(`sortby=and`)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(q.Root, &Term{Index: "sortby", Relation: "=", Value: "and"}) {
		t.Fatalf("got %#v", q.Root)
	}
}

func TestStringRoundTrip(t *testing.T) {
	for _, c := range sqlCases {
		q, err := Parse(c.query)
		if err != nil {
			t.Fatal(err)
		}
		s := q.String()
		q2, err := Parse(s)
		if err != nil {
			t.Fatalf("%s → %s does not parse: %v", c.query, s, err)
		}
		if !reflect.DeepEqual(q, q2) {
			t.Errorf("%s → %s parses to a different tree", c.query, s)
		}
	}
	q, _ := Parse(`a=b and (c==d or e<>"f g") sortby h/sort.descending`)
	if got, want := q.String(), `a = "b" and (c == "d" or e <> "f g") sortby h/sort.descending`; got != want {
		t.Fatalf("String = %s, want %s", got, want)
	}
}

func TestErrors(t *testing.T) {
	cases := []struct{ query, msg string }{
		{``, "expected index or term, got EOF"},
		{`barcode==`, "expected index or term, got EOF"},
		{`(barcode==x`, "expected ')', got EOF"},
		{`barcode==x)`, "junk after end: ')'"},
		{`(barcode==x) "y"`, `expected boolean, got string: "y"`},
		{`a==1 / b==2`, "expected boolean, got '/'"},
		{`a==1 sortby b == c`, "expected sort index, got =="},
		{`a==1 or or b==2`, `unexpected relation '=='`}, // cql-java: a keyword may be a word, "or b" a run
		{`a==1 and`, "expected index or term, got EOF"},
		{`barcode=="abc`, `unterminated string: "abc`},
		{`a==1 sortby`, "no sort keys"},
		{`a==1 sortby b/`, "expected modifier, got EOF"},
		{`>dc="info:srw/cql" title=x`, "prefix assignments (>) are not supported"},
		{strings.Repeat("(", 300) + "a==1" + strings.Repeat(")", 300), "query nested deeper than 200 parentheses"},
		// Parsed fine, refused by the translator.
		{`harry`, "cql.serverChoice requested, but no serverChoiceIndexes defined: harry"},
		{`title =/respectCase x`, "unsupported relation modifier: =/respectcase"},
		{`title =/@type=x y`, "unsupported relation modifier: =/@type"},
		{`position ==/number abc`, "CQL: position==/number needs a number, got: abc"},
		{`position any/number 5`, "CQL: /number is not supported with any"},
		{`id any "` + itemID + `"`, "CQL: Unsupported operator 'any' id only supports '=', '==', and '<>' (possibly with right truncation)"},
		{`id ==/number 5`, "CQL: Unsupported modifier number"},
		{`id=="0b*6*"`, "CQL: only right truncation supported for id: 0b*6*"},
		{`title within "1 2"`, "unsupported relation: within"},
		{`title exact x`, "cql.serverChoice requested, but no serverChoiceIndexes defined: title exact x"}, // CQL 1.1's relation
		{`a==1 prox b==2`, "prox is not supported"},
		{`a==1 and/x b==2`, "unsupported boolean modifier: /x"},
		{`title==^abc`, "^ anchoring is not supported: ^abc"},
		{`"a'b"==1`, `invalid index name: "a'b"`},
		{`a..b==1`, `invalid index name: "a..b"`},
		{`cql.resultSetId=x`, "unsupported index: cql.resultSetId"},
		{`id<nope`, "CQL: Invalid UUID after id comparator <: nope"},
		{`position>9*`, "wildcards are not allowed with >: 9*"},
		// RMB's full-text terms (Cql2SqlUtil.appendCql2tsquery).
		{`title=p?pper`, "? wildcard not allowed in full text query string"},
		{`title all "pep*er"`, "* right truncation wildcard must be followed by space or end of string, but found e"},
		{`a==1 sortby b/sort.respectCase`, "unsupported sort modifier: b/sort.respectcase"},
		{`a==1 sortby "x y"`, `invalid sort index: "x y"`},
		// cql-java: a relation after a run of words (testdata/cql-java-1.13.tsv has more).
		{`barcode==x y==z`, `unexpected relation '=='`},
		// PostgreSQL cannot hold a NUL: refused before it reaches the database.
		{"barcode==\"a\x00b\"", "invalid CQL: NUL character (%00) at position 11"},
		{"barcode==a\x00", "invalid CQL: NUL character (%00) at position 10"},
		{"a==1 sortby \x00", "invalid CQL: NUL character (%00) at position 12"},
	}
	for _, c := range cases {
		_, err := ToSQL(c.query, itemT, 1)
		var ce *Error
		if !errors.As(err, &ce) {
			t.Errorf("%q: got %v, want *Error %q", c.query, err, c.msg)
			continue
		}
		if ce.Msg != c.msg {
			t.Errorf("%q:\n got %q\nwant %q", c.query, ce.Msg, c.msg)
		}
	}
}

// orChain is "a==1 or a==2 … a==n", flat (no nesting).
func orChain(index string, n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		if i > 1 {
			b.WriteString(" or ")
		}
		fmt.Fprintf(&b, "%s==%d", index, i)
	}
	return b.String()
}

// Only nesting was bounded: a flat chain of 20,000 terms took the storage
// module 12 s and then a 500, 70,000 nearly 8 minutes. MaxTerms search
// clauses pass, one more is refused before any translation, however the
// terms are grouped, and not as a syntax error (cql-java has no such limit).
func TestMaxTerms(t *testing.T) {
	if _, err := ToSQL(orChain("barcode", MaxTerms), itemT, 1); err != nil {
		t.Fatalf("%d terms: %v", MaxTerms, err)
	}
	for _, q := range []string{
		orChain("barcode", MaxTerms+1),
		orChain("barcode", 20000),
		"barcode==(" + strings.ReplaceAll(orChain("", MaxTerms+1), "==", "") + ")",
		"(" + orChain("barcode", MaxTerms/2) + ") and (" + orChain("status.name", MaxTerms/2+1) + ")",
	} {
		_, err := ToSQL(q, itemT, 1)
		var ce *Error
		if !errors.As(err, &ce) || !ce.TooManyTerms || ce.Syntax || ce.Msg != "query has more than 1024 search clauses" {
			t.Errorf("%.60s… (%d bytes): %#v, want the MaxTerms refusal", q, len(q), err)
		}
	}
}

// BenchmarkToSQL: the translator runs on every storage GET; run with
// go test -bench=ToSQL ./internal/cql/.
func BenchmarkToSQL(b *testing.B) {
	q := `(userId==` + userID + ` and itemId==` + itemID + `) AND (status.name=="Open" OR status.name=="Closed")`
	for i := 0; i < b.N; i++ {
		if _, err := ToSQL(q, accountsT, 1); err != nil {
			b.Fatal(err)
		}
	}
}

// RMB words its missing-index warning by the search CQL2PgJSON built; the
// report counts all four, and a real FOLIO logs the FT one for check-out's
// pickupServicePointId= lookup.
func TestUnindexedSearchKind(t *testing.T) {
	cases := []struct{ query, field, kind string }{
		{`pickupServicePointId=` + spID, "pickupServicePointId", "FT search"},
		{`pickupServicePointId all "a b"`, "pickupServicePointId", "FT search"},
		{`pickupServicePointId==` + spID, "pickupServicePointId", "LIKE search"},
		{`pickupServicePointId<>x`, "pickupServicePointId", "LIKE search"},
		{`pickupServicePointId==ab*`, "pickupServicePointId", "wildcard LIKE search"},
		{`pickupServicePointId>a`, "pickupServicePointId", "SQL query"},
		{`position=/number 3`, "position", "SQL query"},
	}
	for _, c := range cases {
		got, err := ToSQL(c.query, requestT, 1)
		if err != nil {
			t.Fatalf("ToSQL(%s): %v", c.query, err)
		}
		if k := got.Search[c.field]; k != c.kind {
			t.Errorf("%s: search kind %q, want %q", c.query, k, c.kind)
		}
	}
	got, err := ToSQL(`requesterId==`+userID, requestT, 1)
	if err != nil || len(got.Search) != 0 {
		t.Errorf("an indexed field has a warning kind: %v %v", got.Search, err)
	}
}

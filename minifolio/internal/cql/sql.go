package cql

import (
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"unicode/utf8"
)

// Table describes the RMB table, (id uuid, jsonb jsonb) plus one uuid
// column per declared foreign key, that a query runs against.
type Table struct {
	Name    string            // for the caller's log lines; the translator does not read it
	Columns map[string]string // CQL index → uuid column of a declared foreign key ("holdingsRecordId" → "holdingsrecordid"); "id" → "id" is implicit
	Indexed map[string]bool   // CQL indexes that have an index on FieldExpr(index) (see IndexDDL)
}

// SQL is a translated query. Where and OrderBy are fragments without the
// WHERE / ORDER BY keywords; Args bind $firstArg, $firstArg+1, … in order.
type SQL struct {
	Where     string
	OrderBy   string // "" when the query has no sortby
	Args      []any  // always strings
	Unindexed []string
	Search    map[string]string // for each Unindexed field, RMB's kind of search: "FT search", "LIKE search", …
}

// ToSQL parses and translates in one step.
func ToSQL(query string, t Table, firstArg int) (SQL, error) {
	q, err := Parse(query)
	if err != nil {
		var ce *Error
		if errors.As(err, &ce) {
			ce.Syntax = !ce.TooManyTerms // cql-java has no such limit: not its CQLParseException
		}
		return SQL{}, err
	}
	return Translate(q, t, firstArg)
}

// Translate turns a parsed query into SQL for table t. Placeholders start
// at $firstArg (≥ 1) so the caller can append LIMIT/OFFSET parameters
// after len(Args). Unindexed lists, sorted and without repeats, the
// JSON fields queried that t.Indexed does not cover: the caller logs
// RMB's "Doing <Search[field]> without index for <field>" for each.
func Translate(q *Query, t Table, firstArg int) (SQL, error) {
	if q == nil {
		return SQL{}, errorf(-1, "empty query")
	}
	if firstArg < 1 {
		firstArg = 1
	}
	tr := &translator{t: t, next: firstArg, unindexed: map[string]string{}}
	where, err := tr.node(q.Root)
	if err != nil {
		return SQL{}, err
	}
	out := SQL{Where: where, Args: tr.args, Search: tr.unindexed}
	var keys []string
	for _, k := range q.Sort {
		s, err := tr.sortKey(k)
		if err != nil {
			return SQL{}, err
		}
		keys = append(keys, s)
	}
	out.OrderBy = strings.Join(keys, ", ")
	for f := range tr.unindexed {
		out.Unindexed = append(out.Unindexed, f)
	}
	sort.Strings(out.Unindexed)
	return out, nil
}

// FieldExpr is the SQL expression a CQL index is matched on: RMB's default
// index settings (caseSensitive=false, removeAccents=true). The storage
// layer must index exactly this expression for PostgreSQL to use it.
// path must be a valid index name (letters, digits, _ and -, dot-separated).
func FieldExpr(path string) string {
	return "lower(public.f_unaccent(" + jsonText(path) + "))"
}

// IndexDDL creates the b-tree index the translator's ==, <> and prefix
// (abc*) matches use. text_pattern_ops serves both = and LIKE 'abc%'
// under any collation. Schema and table are written as given.
func IndexDDL(schema, table, path string, unique bool) string {
	u := ""
	if unique {
		u = "UNIQUE "
	}
	name := strings.ToLower(table + "_" + strings.NewReplacer(".", "_", "-", "_").Replace(path) + "_idx")
	return fmt.Sprintf("CREATE %sINDEX IF NOT EXISTS %s ON %s.%s ((%s) text_pattern_ops)", u, name, schema, table, FieldExpr(path))
}

// UnaccentFunctionSQL creates public.f_unaccent, the IMMUTABLE wrapper of
// unaccent that RMB also creates: unaccent itself is only STABLE (it reads
// its dictionary through search_path), so PostgreSQL refuses it in an
// index expression. Needs the unaccent extension in schema public. Safe to
// run concurrently and repeatedly.
const UnaccentFunctionSQL = `DO $do$ BEGIN
  CREATE FUNCTION public.f_unaccent(text) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
    AS $f$ SELECT public.unaccent('public.unaccent'::regdictionary, $1) $f$;
EXCEPTION WHEN duplicate_function OR unique_violation THEN NULL;
END $do$`

// FullTextFunctionsSQL creates RMB's full-text helpers in public (RMB's
// templates/db_scripts/general_functions.ftl, v33–v35, creates the same per
// schema): get_tsvector is PostgreSQL's 'simple' parser over the text with
// '&' made a separator; tsquery_and turns a term's space-separated words
// into quoted lexemes joined by & (a trailing * is a prefix match), and
// tsquery_or / tsquery_phrase join them with | and <->. Each word is then
// parsed by the same 'simple' parser, so an e-mail address, a host name or a
// hyphenated word is tokenised as in the record.
const FullTextFunctionsSQL = `DO $do$ BEGIN
  CREATE OR REPLACE FUNCTION public.get_tsvector(text) RETURNS tsvector AS $f$
    SELECT to_tsvector('simple', translate($1, '&', ','));
  $f$ LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT;
  CREATE OR REPLACE FUNCTION public.tsquery_and(text) RETURNS tsquery AS $f$
    SELECT to_tsquery('simple', string_agg(CASE WHEN length(v) = 0 OR v = '*' THEN ''
                                               WHEN right(v, 1) = '*' THEN '''' || left(v, -1) || ''':*'
                                               ELSE '''' || v || '''' END,
                                          '&'))
    FROM (SELECT regexp_split_to_table(translate($1, '&''', ',,'), ' +')) AS x(v);
  $f$ LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT;
  CREATE OR REPLACE FUNCTION public.tsquery_or(text) RETURNS tsquery AS $f$
    SELECT replace(public.tsquery_and($1)::text, '&', '|')::tsquery;
  $f$ LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT;
  CREATE OR REPLACE FUNCTION public.tsquery_phrase(text) RETURNS tsquery AS $f$
    SELECT replace(public.tsquery_and($1)::text, '&', '<->')::tsquery;
  $f$ LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT;
EXCEPTION WHEN unique_violation THEN NULL;
END $do$`

// jsonText is jsonb->'a'->>'b' for "a.b"; jsonValue is jsonb->'a'->'b'.
func jsonText(path string) string {
	segs := strings.Split(path, ".")
	var b strings.Builder
	b.WriteString("jsonb")
	for i, s := range segs {
		if i == len(segs)-1 {
			b.WriteString("->>'")
		} else {
			b.WriteString("->'")
		}
		b.WriteString(strings.ReplaceAll(s, "'", "''"))
		b.WriteByte('\'')
	}
	return b.String()
}

func jsonValue(path string) string {
	var b strings.Builder
	b.WriteString("jsonb")
	for _, s := range strings.Split(path, ".") {
		b.WriteString("->'")
		b.WriteString(strings.ReplaceAll(s, "'", "''"))
		b.WriteByte('\'')
	}
	return b.String()
}

type translator struct {
	t         Table
	next      int
	args      []any
	unindexed map[string]string // field -> RMB's kind of search (see searchKind)
}

func (tr *translator) bind(v string) string {
	tr.args = append(tr.args, v)
	tr.next++
	return fmt.Sprintf("$%d", tr.next-1)
}

// folded binds v and applies the same case/accent folding as FieldExpr.
func (tr *translator) folded(v string) string {
	return "lower(public.f_unaccent(" + tr.bind(v) + "))"
}

func (tr *translator) node(n Node) (string, error) {
	switch n := n.(type) {
	case *Term:
		return tr.term(n)
	case *Boolean:
		if n.Op == "prox" {
			return "", errorf(-1, "prox is not supported")
		}
		if len(n.Modifiers) > 0 {
			return "", errorf(-1, "unsupported boolean modifier: /%s", n.Modifiers[0].Name)
		}
		l, err := tr.node(n.Left)
		if err != nil {
			return "", err
		}
		r, err := tr.node(n.Right)
		if err != nil {
			return "", err
		}
		switch n.Op {
		case "and":
			return "(" + l + " AND " + r + ")", nil
		case "or":
			return "(" + l + " OR " + r + ")", nil
		default:
			// RMB's form: NULL (a missing field) counts as "does not
			// match", so NOT keeps the records that lack the field.
			return "(" + l + " AND (" + r + ") IS NOT TRUE)", nil
		}
	}
	return "", errorf(-1, "empty query")
}

var relations = map[string]bool{"=": true, "==": true, "<>": true, "<": true, "<=": true, ">": true, ">=": true,
	"all": true, "any": true, "adj": true}

func (tr *translator) term(n *Term) (string, error) {
	idx := strings.ToLower(n.Index)
	switch {
	case idx == "cql.allrecords":
		return "TRUE", nil
	case idx == "cql.serverchoice":
		return "", errorf(-1, "cql.serverChoice requested, but no serverChoiceIndexes defined: %s", n.Value)
	case strings.HasPrefix(idx, "cql."):
		return "", errorf(-1, "unsupported index: %s", n.Index)
	case !pathRe.MatchString(n.Index):
		return "", errorf(-1, "invalid index name: %q", n.Index)
	}
	if !relations[n.Relation] {
		return "", errorf(-1, "unsupported relation: %s", n.Relation)
	}
	if col, ok := tr.column(n.Index); ok {
		return tr.uuidTerm(col, n)
	}
	number, err := relationModifiers(n)
	if err != nil {
		return "", err
	}
	ps, err := parts(n.Value)
	if err != nil {
		return "", err
	}
	if !tr.t.Indexed[n.Index] {
		tr.unindexed[n.Index] = searchKind(n.Relation, number, hasWildcard(ps))
	}
	if number {
		return tr.numberTerm(n, ps)
	}
	field := FieldExpr(n.Index)
	switch n.Relation {
	case "==", "<>":
		op, like := "=", "LIKE"
		if n.Relation == "<>" {
			op, like = "<>", "NOT LIKE"
		}
		if hasWildcard(ps) {
			return field + " " + like + " " + tr.folded(likePattern(ps)), nil
		}
		return field + " " + op + " " + tr.folded(literal(ps)), nil
	case "<", "<=", ">", ">=":
		// Strings compare as (folded) strings, as in RMB: "2" > "19";
		// =/number and </number compare numbers.
		if hasWildcard(ps) {
			return "", errorf(-1, "wildcards are not allowed with %s: %s", n.Relation, n.Value)
		}
		return field + " " + n.Relation + " " + tr.folded(literal(ps)), nil
	}
	return tr.wordTerm(n.Index, n)
}

// searchKind names the search in RMB's warning for a field without an index
// ("Doing <kind> without index for <field>"), as CQL2PgJSON picks it by
// relation: = adj all any are full-text searches, == and <> on a string are
// LIKE searches (with a wildcard, "wildcard LIKE"), the rest plain SQL. A
// real FOLIO writes the FT variant for every `pickupServicePointId=<uuid>`
// of a check-out: that field has a b-tree index but no full-text one.
func searchKind(relation string, number, wildcard bool) string {
	switch {
	case number, relation == "<", relation == "<=", relation == ">", relation == ">=":
		return "SQL query"
	case (relation == "==" || relation == "<>") && wildcard:
		return "wildcard LIKE search"
	case relation == "==" || relation == "<>":
		return "LIKE search"
	}
	return "FT search"
}

// relationModifiers accepts RMB's modifiers that only restate the default
// (masked, string, ignoreCase, ignoreAccents) and /number; the others
// (respectCase, respectAccents, regexp, array @-modifiers …) need index
// variants minifolio does not build, so they are refused.
func relationModifiers(n *Term) (number bool, err error) {
	for _, m := range n.Modifiers {
		if m.Op == "" {
			switch m.Name {
			case "number":
				number = true
				continue
			case "masked", "string", "ignorecase", "ignoreaccents":
				continue
			}
		}
		return false, errorf(-1, "unsupported relation modifier: %s/%s", n.Relation, m.Name)
	}
	return number, nil
}

// numberTerm is RMB's /number: the JSON value compares as a number (3.4 ==
// 3.400, 2 < 19). Comparing jsonb with jsonb cannot fail on a record whose
// value is not a number, unlike a ::numeric cast.
func (tr *translator) numberTerm(n *Term, ps []part) (string, error) {
	v := literal(ps)
	if hasWildcard(ps) || !numberRe.MatchString(v) {
		return "", errorf(-1, "CQL: %s%s/number needs a number, got: %s", n.Index, n.Relation, n.Value)
	}
	op := n.Relation
	switch op {
	case "==", "=":
		op = "="
	case "<>", "<", "<=", ">", ">=":
	default:
		return "", errorf(-1, "CQL: /number is not supported with %s", n.Relation)
	}
	return jsonValue(n.Index) + " " + op + " " + tr.bind(v) + "::text::jsonb", nil
}

// wordTerm is =, adj, all and any on a string field: RMB's full-text match
// (cql2pgjson's queryByFt, v33–v35), whether or not the field has a
// full-text index: get_tsvector(f_unaccent(field)) @@
// tsquery_phrase(f_unaccent(term)) for = and adj, tsquery_and for all,
// tsquery_or for any. Words are what PostgreSQL's 'simple' parser makes of
// the text, so "example.org" is not a word of "usr1@example.org" (one email
// token) while "potter" is one of "Harry Potter's". A * ends a word as a
// prefix match; anywhere else it is an error, and so is ?, as in RMB. A
// term that is a lone * matches every record; an empty term every record
// that has the field.
func (tr *translator) wordTerm(index string, n *Term) (string, error) {
	// RMB: "Remove stand-alone ' *', not valid word."
	term := strings.TrimSpace(standaloneStar.ReplaceAllString(n.Value, ""))
	if term == "*" {
		return "TRUE", nil
	}
	if term == "" {
		return jsonText(index) + " ~ ''", nil
	}
	tsTerm, err := cql2tsquery(term)
	if err != nil {
		return "", err
	}
	fn := "public.tsquery_phrase"
	switch n.Relation {
	case "all":
		fn = "public.tsquery_and"
	case "any":
		fn = "public.tsquery_or"
	}
	return "public.get_tsvector(public.f_unaccent(" + jsonText(index) + ")) @@ " + fn + "(public.f_unaccent(" + tr.bind(tsTerm) + "))", nil
}

var standaloneStar = regexp.MustCompile(` +[*]`)

// cql2tsquery is RMB's Cql2SqlUtil.appendCql2tsquery without the SQL
// quoting (the value is bound): a backslash masks the next character (a
// doubled one stays as two), a * must end a word, an unmasked ? is refused.
func cql2tsquery(s string) (string, error) {
	var b strings.Builder
	backslash := false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\\':
			if backslash {
				b.WriteString(`\\`)
			}
			backslash = !backslash
		case '*':
			if !backslash && i+1 < len(s) && s[i+1] != ' ' {
				r, _ := utf8.DecodeRuneInString(s[i+1:])
				return "", errorf(-1, "* right truncation wildcard must be followed by space or end of string, but found %c", r)
			}
			b.WriteByte('*')
		case '?':
			if !backslash {
				return "", errorf(-1, "? wildcard not allowed in full text query string")
			}
			b.WriteByte(c)
			backslash = false
		default:
			b.WriteByte(c)
			backslash = false
		}
	}
	return b.String(), nil
}

func (tr *translator) column(index string) (string, bool) {
	if index == "id" {
		return "id", true
	}
	col, ok := tr.t.Columns[index]
	return col, ok
}

// uuidTerm matches the id column or a foreign-key column the way RMB's
// pgId does: =, == and <> with a UUID, right truncation (id=="12ab*") as
// an index range, < <= > >= with a UUID only. A term that is not a UUID
// matches no record with = / == (and every record with <>) instead of
// failing: PTF's user lookup sends id=="<barcode>" ORed with
// barcode=="<barcode>" and expects the barcode to match.
func (tr *translator) uuidTerm(col string, n *Term) (string, error) {
	if len(n.Modifiers) > 0 {
		return "", errorf(-1, "CQL: Unsupported modifier %s", n.Modifiers[0].Name)
	}
	eq := true
	switch n.Relation {
	case "=", "==":
	case "<>":
		eq = false
	case "<", "<=", ">", ">=":
		if !uuidRe.MatchString(n.Value) {
			return "", errorf(-1, "CQL: Invalid UUID after %s comparator %s: %s", n.Index, n.Relation, n.Value)
		}
		return col + " " + n.Relation + " " + tr.bind(strings.ToLower(n.Value)), nil
	default:
		return "", errorf(-1, "CQL: Unsupported operator '%s' %s only supports '=', '==', and '<>' (possibly with right truncation)",
			n.Relation, n.Index)
	}
	// pick returns the condition for = / ==, or for <>; a missing
	// foreign key (NULL) matches neither, as any undefined value in RMB.
	pick := func(is, isNot string) (string, error) {
		if eq {
			return is, nil
		}
		return isNot, nil
	}
	term := n.Value
	if term == "" || term == "*" {
		return pick(col+" IS NOT NULL", "FALSE")
	}
	if !strings.Contains(term, "*") {
		if !uuidRe.MatchString(term) {
			return pick("FALSE", col+" IS NOT NULL")
		}
		v := tr.bind(strings.ToLower(term))
		return pick(col+" = "+v, col+" <> "+v)
	}
	prefix := strings.TrimSuffix(term, "*")
	if strings.Contains(prefix, "*") {
		return "", errorf(-1, "CQL: only right truncation supported for %s: %s", n.Index, term)
	}
	lo, hi, ok := uuidRange(prefix)
	if !ok {
		return pick("FALSE", col+" IS NOT NULL")
	}
	l, h := tr.bind(lo), tr.bind(hi)
	return pick(col+" BETWEEN "+l+" AND "+h, "("+col+" < "+l+" OR "+col+" > "+h+")")
}

// sortKey orders like RMB: by the folded text, or with /number by the
// JSON value (numbers in numeric order).
func (tr *translator) sortKey(k SortKey) (string, error) {
	dir, number := "", false
	for _, m := range k.Modifiers {
		switch m.Name {
		case "sort.ascending", "string", "ignorecase", "ignoreaccents":
		case "sort.descending":
			dir = " DESC"
		case "number":
			number = true
		default:
			return "", errorf(-1, "unsupported sort modifier: %s/%s", k.Index, m.Name)
		}
	}
	if col, ok := tr.column(k.Index); ok {
		return col + dir, nil
	}
	if strings.HasPrefix(strings.ToLower(k.Index), "cql.") || !pathRe.MatchString(k.Index) {
		return "", errorf(-1, "invalid sort index: %q", k.Index)
	}
	if number {
		return jsonValue(k.Index) + dir, nil
	}
	return FieldExpr(k.Index) + dir, nil
}

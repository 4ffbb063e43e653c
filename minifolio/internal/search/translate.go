package search

import (
	"errors"
	"fmt"
	"strings"

	"github.com/folio-perf/folio-perf/minifolio/internal/cql"
)

// QueryError is a request mod-search refuses with 400: Type and Code are the
// errorResponse's type and code, Key/Value its one parameter (if any).
type QueryError struct {
	Msg, Type, Code string
	Key, Value      string
}

func (e *QueryError) Error() string { return e.Msg }

func parseError(query, resource string) *QueryError {
	return &QueryError{Msg: fmt.Sprintf("Failed to parse CQL query [cql: '%s', resource: %s]", query, resource),
		Type: "SearchServiceException", Code: "service_error"}
}

func fieldError(field string) *QueryError {
	return &QueryError{Msg: "Invalid search field provided in the CQL query", Type: "RequestValidationException",
		Code: "validation_error", Key: "field", Value: field}
}

func unsupported(msg, key, value string) *QueryError {
	return &QueryError{Msg: msg, Type: "RequestValidationException", Code: "validation_error", Key: key, Value: value}
}

// Translated is a CQL query as an OpenSearch search: the query clause and
// the sort (nil: relevance, mod-search's default).
type Translated struct {
	Query map[string]any
	Sort  []any
}

type translator struct {
	r *Resource
}

// Translate turns a CQL query into an OpenSearch query with mod-search's
// semantics (see the package README section "CQL"). Every refusal is a
// *QueryError; nothing panics, whatever the input (FuzzTranslate).
func Translate(r *Resource, query string) (*Translated, error) {
	q, err := cql.Parse(query)
	var ce *cql.Error
	if errors.As(err, &ce) && ce.TooManyTerms {
		// cql.MaxTerms: far above any real search, so a hostile query cannot
		// make OpenSearch build a huge boolean tree.
		return nil, unsupported(fmt.Sprintf("The query has more than %d clauses", cql.MaxTerms), "", "")
	}
	if err != nil {
		return nil, parseError(query, r.Name)
	}
	t := &translator{r: r}
	root, err := t.node(q.Root)
	if err != nil {
		return nil, err
	}
	out := &Translated{Query: root}
	for _, k := range q.Sort {
		name := fieldName(k.Index)
		path, ok := r.Sorts[name]
		if !ok {
			return nil, unsupported("Sort field not found or cannot be used", "sortField", k.Index)
		}
		order, mode := "asc", "min"
		for _, m := range k.Modifiers {
			switch m.Name {
			case "sort.descending":
				order, mode = "desc", "max"
			case "sort.ascending":
			default:
				return nil, unsupported("Unsupported sort modifier", "modifier", m.Name)
			}
		}
		out.Sort = append(out.Sort, map[string]any{path: map[string]any{"order": order, "mode": mode, "missing": "_last"}})
	}
	return out, nil
}

// fieldName applies mod-search's field-name rewrites: "item." is an alias of
// "items." (ItemSearchFieldModifier), and a query without an index searches
// the keyword alias.
func fieldName(index string) string {
	if strings.HasPrefix(index, "item.") {
		return "items." + index[len("item."):]
	}
	if strings.EqualFold(index, "cql.serverChoice") {
		return "keyword"
	}
	return index
}

func (t *translator) node(n cql.Node) (map[string]any, error) {
	switch n := n.(type) {
	case *cql.Boolean:
		l, err := t.node(n.Left)
		if err != nil {
			return nil, err
		}
		r, err := t.node(n.Right)
		if err != nil {
			return nil, err
		}
		switch n.Op {
		case "and":
			return boolQuery("must", flatten("must", l, r)...), nil
		case "or":
			q := boolQuery("should", flatten("should", l, r)...)
			q["bool"].(map[string]any)["minimum_should_match"] = 1
			return q, nil
		case "not":
			return map[string]any{"bool": map[string]any{"must": []any{l}, "must_not": []any{r}}}, nil
		}
		return nil, unsupported("Unsupported boolean operator: "+n.Op, "operator", n.Op)
	case *cql.Term:
		return t.term(n)
	}
	return nil, unsupported("Unsupported query node", "", "")
}

// flatten merges nested bools of the same kind ((a AND b) AND c → must[a,b,c]),
// keeping the query shallow as mod-search's builders do.
func flatten(kind string, qs ...map[string]any) []any {
	var out []any
	for _, q := range qs {
		if b, ok := q["bool"].(map[string]any); ok && len(b) == 1 || (kind == "should" && ok && len(b) == 2 && b["minimum_should_match"] != nil) {
			if list, ok := b[kind].([]any); ok {
				out = append(out, list...)
				continue
			}
		}
		out = append(out, q)
	}
	return out
}

func boolQuery(kind string, qs ...any) map[string]any {
	return map[string]any{"bool": map[string]any{kind: qs}}
}

func matchAll() map[string]any { return map[string]any{"match_all": map[string]any{}} }

func (t *translator) term(n *cql.Term) (map[string]any, error) {
	name := fieldName(n.Index)
	if strings.EqualFold(name, "cql.allRecords") {
		return matchAll(), nil
	}
	f, ok := t.r.Fields[name]
	if !ok {
		return nil, fieldError(n.Index)
	}
	exactString := false
	for _, m := range n.Modifiers {
		if m.Name == "string" && f.Kind == FullText {
			exactString = true
			continue
		}
		return nil, unsupported("Unsupported relation modifier: "+m.Name, "modifier", m.Name)
	}
	lit, pattern, wild := splitWildcards(n.Value)
	rel := n.Relation
	// id=* and friends: every record with the field.
	if strings.TrimSpace(pattern) == "*" && (rel == "=" || rel == "==" || rel == "all" || rel == "any") {
		if name == "id" {
			return matchAll(), nil
		}
		return t.exists(f), nil
	}
	switch rel {
	case "<", "<=", ">", ">=":
		if f.Kind == FullText {
			return nil, unsupported(fmt.Sprintf("Unsupported relation %q for full-text field %q", rel, n.Index), "relation", rel)
		}
		op := map[string]string{"<": "lt", "<=": "lte", ">": "gt", ">=": "gte"}[rel]
		return shouldOver(f.Paths, func(p string) map[string]any {
			return map[string]any{"range": map[string]any{p: map[string]any{op: lit}}}
		}), nil
	case "=", "==", "all", "any", "<>":
	default:
		return nil, unsupported(fmt.Sprintf("Unsupported relation %q", rel), "relation", rel)
	}
	var q map[string]any
	switch {
	case wild:
		// mod-search queries wildcards on the whole (keyword) value of a
		// full-text field, case-insensitively: "water*" is a value starting
		// with "water", "*africa" one ending with "africa".
		q = shouldOver(f.Paths, func(p string) map[string]any {
			if f.Kind == FullText {
				p += ".keyword"
			}
			return map[string]any{"wildcard": map[string]any{p: map[string]any{"value": strings.ToLower(pattern), "case_insensitive": true}}}
		})
	case f.Kind == Term:
		if rel == "all" || rel == "any" {
			return nil, unsupported(fmt.Sprintf("Unsupported relation %q for term field %q", rel, n.Index), "relation", rel)
		}
		q = shouldOver(f.Paths, func(p string) map[string]any {
			return map[string]any{"term": map[string]any{p: lit}}
		})
	case exactString:
		q = shouldOver(f.Paths, func(p string) map[string]any {
			return map[string]any{"term": map[string]any{p + ".keyword": lit}}
		})
	case rel == "==":
		q = multiMatch(f.Paths, lit, "phrase", "")
	case rel == "any":
		q = multiMatch(f.Paths, lit, "best_fields", "or")
	default: // all, =, <>
		q = multiMatch(f.Paths, lit, "cross_fields", "and")
	}
	if rel == "<>" {
		return map[string]any{"bool": map[string]any{"must_not": []any{q}}}, nil
	}
	return q, nil
}

func multiMatch(paths []string, v, typ, op string) map[string]any {
	m := map[string]any{"query": v, "fields": paths, "type": typ}
	if op != "" {
		m["operator"] = op
	}
	return map[string]any{"multi_match": m}
}

func shouldOver(paths []string, one func(string) map[string]any) map[string]any {
	if len(paths) == 1 {
		return one(paths[0])
	}
	qs := make([]any, len(paths))
	for i, p := range paths {
		qs[i] = one(p)
	}
	return map[string]any{"bool": map[string]any{"should": qs, "minimum_should_match": 1}}
}

func (t *translator) exists(f *Field) map[string]any {
	return shouldOver(f.Paths, func(p string) map[string]any {
		return map[string]any{"exists": map[string]any{"field": p}}
	})
}

// splitWildcards reads a lexed CQL term (escapes kept as \* \? \^ \\): lit is
// the term without escapes or wildcards, pattern the OpenSearch wildcard
// pattern (unescaped * is the wildcard; a literal *, ? or \ is escaped), and
// wild whether the term has an unescaped *. CQL's ? is taken literally:
// mod-search documents only * as a wildcard.
func splitWildcards(v string) (lit, pattern string, wild bool) {
	var l, p strings.Builder
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c == '\\' && i+1 < len(v):
			i++
			l.WriteByte(v[i])
			if v[i] == '*' || v[i] == '?' || v[i] == '\\' {
				p.WriteByte('\\')
			}
			p.WriteByte(v[i])
		case c == '*':
			wild = true
			p.WriteByte('*')
		case c == '?' || c == '\\':
			l.WriteByte(c)
			p.WriteByte('\\')
			p.WriteByte(c)
		default:
			l.WriteByte(c)
			p.WriteByte(c)
		}
	}
	return strings.TrimSpace(l.String()), p.String(), wild
}

package search

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/folio-perf/folio-perf/minifolio/internal/cql"
)

func dsl(t *testing.T, r *Resource, q string) string {
	t.Helper()
	tr, err := Translate(r, q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	b, _ := json.Marshal(map[string]any{"query": tr.Query, "sort": tr.Sort})
	return string(b)
}

// TestTranslateShapes pins each relation to the OpenSearch query mod-search
// builds for it.
func TestTranslateShapes(t *testing.T) {
	cases := []struct {
		r     *Resource
		query string
		want  []string // substrings of the DSL
	}{
		{Instances, `title all "water africa"`, []string{`"multi_match"`, `"operator":"and"`, `"type":"cross_fields"`, `"indexTitle"`}},
		{Instances, `title = "water africa"`, []string{`"operator":"and"`, `"type":"cross_fields"`}},
		{Instances, `title any "water africa"`, []string{`"operator":"or"`}},
		{Instances, `title == "water africa"`, []string{`"type":"phrase"`}},
		{Instances, `title ==/string "water africa"`, []string{`{"term":{"title.keyword":"water africa"}}`}},
		{Instances, `title <> "water"`, []string{`{"bool":{"must_not":[{"multi_match"`}},
		{Instances, `title all water*`, []string{`"wildcard":{"title.keyword":{"case_insensitive":true,"value":"water*"}}`}},
		{Instances, `contributors = *Brown`, []string{`"wildcard":{"contributors.name.keyword":{"case_insensitive":true,"value":"*brown"}}`}},
		{Instances, `keyword all *climate change*`, []string{`"value":"*climate change*"`, `"minimum_should_match":1`}},
		{Instances, `languages == eng`, []string{`{"term":{"languages":"eng"}}`}},
		{Instances, `languages = eng`, []string{`{"term":{"languages":"eng"}}`}},
		{Instances, `item.status.name == "In transit"`, []string{`{"term":{"items.status.name":"In transit"}}`}},
		{Instances, `hrid = "in0000*"`, []string{`"wildcard":{"hrid"`}},
		{Instances, `metadata.createdDate > "2020-01-01"`, []string{`{"range":{"metadata.createdDate":{"gt":"2020-01-01"}}}`}},
		{Instances, `cql.allRecords=1`, []string{`{"match_all":{}}`}},
		{Instances, `id=*`, []string{`{"match_all":{}}`}},
		{Instances, `subjects all a AND title all b AND title all c`, []string{`{"bool":{"must":[{"multi_match"`}},
		{Instances, `subjects = (a OR b)`, []string{`"should":[`, `"minimum_should_match":1`}},
		{Instances, `subjects all a NOT title all b`, []string{`"must":[`, `"must_not":[`}},
		{Instances, `title all x sortBy title/sort.descending contributors`, []string{`"title.keyword":{"missing":"_last","mode":"max","order":"desc"}`, `"contributors.name.keyword":{"missing":"_last","mode":"min","order":"asc"}`}},
		{Instances, `water`, []string{`"contributors.name"`}}, // no index: keyword
		{Authorities, `keyword all smith`, []string{`"sftPersonalName"`, `"saftTopicalTerm"`}},
		{Authorities, `(keyword all "X" or naturalId="X")`, []string{`{"term":{"naturalId":"X"}}`}},
		{Instances, `title all "a\*b"`, []string{`"query":"a*b"`}}, // an escaped * is a literal
		// cql-java 1.13's terms (internal/cql/testdata/cql-java-1.13.tsv): once a
		// run has two words, relation words are words of the term; named relations
		// are lower case; "exact" is no relation in CQL 1.2.
		{Instances, `keyword all Curious among any`, []string{`"query":"Curious among any"`, `"operator":"and"`}},
		{Instances, `title all water fire all adj`, []string{`"query":"water fire all adj"`, `"title"`}},
		{Instances, `title any water "fire earth"`, []string{`"query":"water fire earth"`, `"operator":"or"`}},
		{Instances, `title ALL water`, []string{`"query":"title ALL water"`, `"contributors.name"`}}, // one keyword term
		{Instances, `title exact water`, []string{`"query":"title exact water"`, `"contributors.name"`}},
	}
	for _, c := range cases {
		if c.want == nil {
			continue
		}
		got := dsl(t, c.r, c.query)
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s:\n  %s\nlacks %s", c.query, got, w)
			}
		}
	}
	// Three ANDed clauses are one flat must list, not nested bools.
	if got := dsl(t, Instances, `subjects all a AND title all b AND title all c`); strings.Count(got, `"bool"`) != 1 {
		t.Errorf("nested ANDs not flattened: %s", got)
	}
}

func TestTranslateRefusals(t *testing.T) {
	cases := []struct {
		r          *Resource
		query, msg string
		key, value string
	}{
		{Instances, `title all "x`, `Failed to parse CQL query [cql: 'title all "x', resource: instance]`, "", ""},
		{Instances, `title all x)`, `Failed to parse CQL query [cql: 'title all x)', resource: instance]`, "", ""},
		{Authorities, `keyword all`, `Failed to parse CQL query [cql: 'keyword all', resource: authority]`, "", ""},
		{Instances, `nosuch all x`, "Invalid search field provided in the CQL query", "field", "nosuch"},
		{Authorities, `title all x`, "Invalid search field provided in the CQL query", "field", "title"},
		{Instances, `languages all eng`, `Unsupported relation "all" for term field "languages"`, "relation", "all"},
		{Instances, `title > x`, `Unsupported relation ">" for full-text field "title"`, "relation", ">"},
		{Instances, `title adj x`, `Unsupported relation "adj"`, "relation", "adj"},
		{Instances, `title all a prox title all b`, "Unsupported boolean operator: prox", "operator", "prox"},
		{Instances, `title all x sortBy nosuch`, "Sort field not found or cannot be used", "sortField", "nosuch"},
		{Instances, `title all x sortBy title/sort.ignoreCase`, "Unsupported sort modifier", "modifier", "sort.ignorecase"},
		{Instances, `languages ==/string eng`, "Unsupported relation modifier: string", "modifier", "string"},
		{Instances, `title all water fire = x`, `Failed to parse CQL query [cql: 'title all water fire = x', resource: instance]`, "", ""},
		{Instances, `title all water cql.foo`, `Failed to parse CQL query [cql: 'title all water cql.foo', resource: instance]`, "", ""},
		{Instances, `title all water cql.foo x`, "Invalid search field provided in the CQL query", "field", "water"},
		{Instances, strings.TrimSuffix(strings.Repeat("title all x or ", cql.MaxTerms+1), " or "),
			"The query has more than 1024 clauses", "", ""},
	}
	for _, c := range cases {
		_, err := Translate(c.r, c.query)
		var qe *QueryError
		if !errors.As(err, &qe) || qe.Msg != c.msg || qe.Key != c.key || qe.Value != c.value || qe.Code == "" || qe.Type == "" {
			t.Errorf("%.80s: %#v, want %q (%s=%s)", c.query, err, c.msg, c.key, c.value)
		}
	}
	// cql.MaxTerms search clauses are one query, however they are grouped.
	if _, err := Translate(Instances, strings.TrimSuffix(strings.Repeat("title all x or ", cql.MaxTerms), " or ")); err != nil {
		t.Errorf("%d clauses: %v", cql.MaxTerms, err)
	}
}

func TestSplitWildcards(t *testing.T) {
	cases := []struct {
		in, lit, pattern string
		wild             bool
	}{
		{`water`, "water", "water", false},
		{`wat*`, "wat", "wat*", true},
		{`*a b*`, "a b", "*a b*", true},
		{`a\*b`, "a*b", `a\*b`, false},
		{`a?b`, "a?b", `a\?b`, false},
		{`a\\b`, `a\b`, `a\\b`, false},
	}
	for _, c := range cases {
		lit, p, w := splitWildcards(c.in)
		if lit != c.lit || p != c.pattern || w != c.wild {
			t.Errorf("%s: %q %q %v, want %q %q %v", c.in, lit, p, w, c.lit, c.pattern, c.wild)
		}
	}
}

// FuzzTranslate: whatever the query, Translate answers a *QueryError or a
// query that serialises to JSON; it never panics.
func FuzzTranslate(f *testing.F) {
	for _, s := range []string{`title all "water"`, `keyword = *w*`, `subjects = ("a" OR "b") NOT title == x sortBy title/sort.descending`,
		`languages == eng AND item.status.name == ("Available" OR "In transit")`, `id=*`, `cql.allRecords=1`, `a\*b`, `((((x`, `title all "\`,
		// cql-java 1.13's runs: relation words inside a term, strings joining, a relation after a run.
		`keyword all Curious among any`, `title any water "fire earth" adj`, `title ALL water`, `title exact water`,
		`a b = c`, `keyword all fusion cql.foo pepper`, `abc"def"`, `a="abc"def`,
		strings.TrimSuffix(strings.Repeat("title all x or ", 1025), " or ")} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		for _, r := range []*Resource{Instances, Authorities} {
			tr, err := Translate(r, q)
			if err != nil {
				var qe *QueryError
				if !errors.As(err, &qe) {
					t.Fatalf("%q: error %T %v is not a QueryError", q, err, err)
				}
				continue
			}
			if _, err := json.Marshal(map[string]any{"query": tr.Query, "sort": tr.Sort}); err != nil {
				t.Fatalf("%q: %v", q, err)
			}
		}
	})
}

func TestIndexBodyIsValidJSON(t *testing.T) {
	for _, r := range []*Resource{Instances, Authorities} {
		var m map[string]any
		if err := json.Unmarshal(IndexBody(r, 1, 0, "-1"), &m); err != nil {
			t.Fatal(err)
		}
	}
}

// BenchmarkTranslate: the module's own work per search before OpenSearch
// (parse, translate, encode the request body).
func BenchmarkTranslate(b *testing.B) {
	for range b.N {
		tr, err := Translate(Instances, `keyword all water in africa AND languages == eng`)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := json.Marshal(map[string]any{"query": tr.Query, "size": 100}); err != nil {
			b.Fatal(err)
		}
	}
}

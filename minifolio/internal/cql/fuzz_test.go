package cql

import (
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"
)

// FuzzParse: on any input, Parse and Translate return a result or an
// *Error and never panic, and a parsed query's String() parses back to the
// same tree.
func FuzzParse(f *testing.F) {
	for _, c := range sqlCases {
		f.Add(c.query)
	}
	for _, s := range []string{`"unterminated`, `a==b\`, `a=/x\"y=1 b`, `((a==1) not b<>2) prox/u=3 c`,
		`a = (b==1 or (c==2)) sortby d/sort.descending e`, `id=="0b96*"`, `x=="a\\*\?\^"`, `>p=x a=b`,
		`""\ .""`, /* a backslash once carried a space into a relation word */
		`""\". 0`, /* an escaped quote in a relation word was written back bare, opening a string */
		// cql-java 1.13's runs (testdata/cql-java-1.13.tsv): relation words inside a term,
		// strings joining a run, a relation after a run, case-sensitive relations,
		// a quote inside a word, and a flat chain past MaxTerms.
		`keyword all Curious among any`, `keyword all Curious any water`, `title any water "fire earth" adj`,
		`title ALL water`, `title exact water`, `a b = c`, `keyword all fusion cql.foo pepper`, `title Cql.Exact x`,
		`abc"def"`, `a="abc"def`, `x all y all z`, orChain("a", MaxTerms+1)} {
		f.Add(s)
	}
	// The storage workflows' and cql-java's table queries.
	if b, err := os.ReadFile("testdata/cql-java-1.13.tsv"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if q, _, ok := strings.Cut(line, "\t"); ok {
				f.Add(q)
			}
		}
	}
	f.Fuzz(func(t *testing.T, s string) {
		q, err := Parse(s)
		var ce *Error
		if err != nil {
			if !errors.As(err, &ce) {
				t.Fatalf("Parse(%q) error %T %v, want *Error", s, err, err)
			}
			return
		}
		for _, tb := range []Table{itemT, usersT, {}} {
			if _, err := Translate(q, tb, 1); err != nil && !errors.As(err, &ce) {
				t.Fatalf("Translate(%q) error %T %v, want *Error", s, err, err)
			}
		}
		s1 := q.String()
		q2, err := Parse(s1)
		if err != nil {
			t.Fatalf("Parse(%q) ok but its String %q fails: %v", s, s1, err)
		}
		if !reflect.DeepEqual(q, q2) {
			t.Fatalf("Parse(%q).String() = %q parses to a different tree", s, s1)
		}
	})
}

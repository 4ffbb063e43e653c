package cql

import (
	"bufio"
	"errors"
	"os"
	"strings"
	"testing"
)

// TestCQLJava holds the parser to cql-java 1.13, the CQL parser of RMB's
// cql2pgjson and so of the storage modules and mod-search: every row of
// testdata/cql-java-1.13.tsv is a query and the tree (or error) cql-java
// 1.13's CQLParser gives for it, as testdata/cqljava/Dump.java printed it.
// The rows cover runs of words and strings as one term (relation words
// included once the run has two symbols), case-sensitive relation words,
// "exact" and "scr" as plain words, prefixed relations, "unexpected
// relation", keywords as terms, modifiers, sortby and the storage
// workflows' queries.
func TestCQLJava(t *testing.T) {
	// Where minifolio's error says more than cql-java's: an unterminated
	// string is EOF to cql-java's lexer.
	betterErrors := map[string]string{
		`barcode=="abc`: `unterminated string: "abc`,
	}
	f, err := os.Open("testdata/cql-java-1.13.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		query, want, ok := strings.Cut(sc.Text(), "\t")
		if !ok {
			t.Fatalf("row %q has no tab", sc.Text())
		}
		rows++
		q, err := Parse(query)
		if msg, isErr := strings.CutPrefix(want, "ERROR: "); isErr {
			if b, ok := betterErrors[query]; ok {
				msg = b
			}
			var ce *Error
			if !errors.As(err, &ce) || ce.Msg != msg {
				t.Errorf("%s\n got %v\nwant the error %q", query, err, msg)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s\n got the error %v\nwant %s", query, err, want)
			continue
		}
		if got := javaTree(q); got != want {
			t.Errorf("%s\n got %s\nwant %s", query, got, want)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if rows < 150 {
		t.Fatalf("only %d rows in testdata/cql-java-1.13.tsv", rows)
	}
}

// javaTree renders a parsed query as Dump.java renders cql-java's tree.
func javaTree(q *Query) string {
	s := javaNode(q.Root)
	if len(q.Sort) == 0 {
		return s
	}
	var b strings.Builder
	b.WriteString("(sortby " + s)
	for _, k := range q.Sort {
		b.WriteString(" " + javaQuote(k.Index) + javaMods(k.Modifiers))
	}
	return b.String() + ")"
}

func javaNode(n Node) string {
	switch n := n.(type) {
	case *Term:
		return "(" + javaQuote(n.Index) + " " + n.Relation + javaMods(n.Modifiers) + " " + javaQuote(n.Value) + ")"
	case *Boolean:
		return "(" + n.Op + javaMods(n.Modifiers) + " " + javaNode(n.Left) + " " + javaNode(n.Right) + ")"
	}
	return "?"
}

func javaMods(ms []Modifier) string {
	var b strings.Builder
	for _, m := range ms {
		b.WriteString("/" + m.Name + m.Op + m.Value)
	}
	return b.String()
}

func javaQuote(s string) string {
	return `"` + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), `"`, `\"`) + `"`
}

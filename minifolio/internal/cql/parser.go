package cql

import (
	"fmt"
	"strings"
)

// Error is a CQL syntax or translation error. Its message follows
// cql-java / RMB wording; storage modules answer it with 400 and the
// message as the body, never 500.
type Error struct {
	Msg string
	Pos int // byte offset in the query where the problem was seen, -1 if unknown
	// Syntax: the query does not parse (cql-java's CQLParseException), as
	// opposed to a parsed query the translation refuses.
	Syntax bool
	// TooManyTerms: the query has more than MaxTerms search clauses (a
	// caller may answer it in its own module's words, as mod-search does).
	TooManyTerms bool
}

func (e *Error) Error() string { return e.Msg }

func errorf(pos int, format string, args ...any) *Error {
	return &Error{Msg: fmt.Sprintf(format, args...), Pos: pos}
}

// Node is a parsed CQL query tree: a *Term or a *Boolean.
type Node interface{ node() }

// Modifier is a relation, boolean or sort modifier: "/name" or "/name=value".
type Modifier struct {
	Name  string // lower-cased, as cql-java stores it
	Op    string // "" for a bare modifier, else the comparison, e.g. "="
	Value string
}

// Term is a search clause: index relation term.
type Term struct {
	Index     string
	Relation  string // "=", "==", "<>", "<", "<=", ">", ">=", or a word relation lower-cased ("all", "any", "adj", …)
	Modifiers []Modifier
	Value     string // the term, escapes processed as the lexer documents
}

// Boolean joins two sub-queries. Op is "and", "or", "not" or "prox".
type Boolean struct {
	Op          string
	Modifiers   []Modifier
	Left, Right Node
}

func (*Term) node()    {}
func (*Boolean) node() {}

// SortKey is one key of a sortby clause.
type SortKey struct {
	Index     string
	Modifiers []Modifier
}

// Query is a parsed CQL query with its optional sortby clause.
type Query struct {
	Root Node
	Sort []SortKey
}

// maxDepth bounds parenthesis nesting: cql-java dies with a
// StackOverflowError on deep nesting; we return a clean 400 instead.
const maxDepth = 200

// MaxTerms bounds the search clauses (index relation term) of one query,
// whatever their nesting: a flat chain "a==1 or a==2 or …" is not deep, but
// thousands of terms cost the translation and PostgreSQL's planner seconds
// to minutes (20,000 took 12 s and then failed, 70,000 nearly 8 minutes),
// and past 65,535 bound values pgx cannot send the query at all. Far above
// any query FOLIO's clients build (mod-circulation sends 50 ids per query);
// the storage modules answer more with RMB's 400 text, mod-search with its
// validation error.
const MaxTerms = 1024

type parser struct {
	lx    *lexer
	depth int
	terms int
}

// Parse parses a CQL query like cql-java 1.13's CQLParser (CQL 1.2), the
// parser of RMB and mod-search: booleans and/or/not/prox are
// left-associative with equal precedence, a run of words and quoted strings
// is one term (relation words too, once the run has two symbols), named
// relations are lower case, "index rel (subquery)" lets the sub-query's
// own index win, and leftover tokens are "junk after end".
// testdata/cql-java-1.13.tsv holds the trees cql-java gives; TestCQLJava
// compares.
//
// A NUL character is refused wherever it is: PostgreSQL's text and jsonb
// cannot hold one, so the query could only fail in the database (SQLSTATE
// 22021), which would be a 500 for what is the client's mistake.
func Parse(src string) (*Query, error) {
	if i := strings.IndexByte(src, 0); i >= 0 {
		return nil, errorf(i, "invalid CQL: NUL character (%%00) at position %d", i)
	}
	p := &parser{lx: newLexer(src)}
	if err := p.lx.next(); err != nil {
		return nil, err
	}
	if p.lx.kind == tokGT {
		return nil, errorf(p.lx.at, "prefix assignments (>) are not supported")
	}
	root, err := p.query("cql.serverChoice", "=", nil)
	if err != nil {
		return nil, err
	}
	q := &Query{Root: root}
	if p.lx.kind == tokSortby {
		if err := p.lx.next(); err != nil {
			return nil, err
		}
		for p.lx.kind != tokEOF {
			idx, err := p.symbol("sort index")
			if err != nil {
				return nil, err
			}
			mods, err := p.modifiers()
			if err != nil {
				return nil, err
			}
			q.Sort = append(q.Sort, SortKey{Index: idx, Modifiers: mods})
		}
		if len(q.Sort) == 0 {
			return nil, errorf(p.lx.at, "no sort keys")
		}
	}
	if p.lx.kind != tokEOF {
		return nil, errorf(p.lx.at, "junk after end: %s", p.lx.render())
	}
	return q, nil
}

func (p *parser) query(index, rel string, mods []Modifier) (Node, error) {
	left, err := p.term(index, rel, mods)
	if err != nil {
		return nil, err
	}
	for p.lx.kind != tokEOF && p.lx.kind != tokRParen && p.lx.kind != tokSortby {
		var op string
		switch p.lx.kind {
		case tokAnd, tokOr, tokNot, tokProx:
			op = kindText[p.lx.kind]
		default:
			return nil, errorf(p.lx.at, "expected boolean, got %s", p.lx.render())
		}
		if err := p.lx.next(); err != nil {
			return nil, err
		}
		bmods, err := p.modifiers()
		if err != nil {
			return nil, err
		}
		right, err := p.term(index, rel, mods)
		if err != nil {
			return nil, err
		}
		left = &Boolean{Op: op, Modifiers: bmods, Left: left, Right: right}
	}
	return left, nil
}

func (p *parser) term(index, rel string, mods []Modifier) (Node, error) {
	for {
		switch p.lx.kind {
		case tokLParen:
			at := p.lx.at
			if p.depth++; p.depth > maxDepth {
				return nil, errorf(at, "query nested deeper than %d parentheses", maxDepth)
			}
			if err := p.lx.next(); err != nil {
				return nil, err
			}
			n, err := p.query(index, rel, mods)
			if err != nil {
				return nil, err
			}
			if p.lx.kind != tokRParen {
				return nil, errorf(p.lx.at, "expected ')', got %s", p.lx.render())
			}
			p.depth--
			return n, p.lx.next()
		case tokGT:
			return nil, errorf(p.lx.at, "prefix assignments (>) are not supported")
		}
		word, err := p.symbol("index or term")
		if err != nil {
			return nil, err
		}
		// cql-java 1.13 (CQLParser.parseTerm) joins a run of words and
		// quoted strings into one term, with one space between them. Only
		// the word right after the first symbol may be a relation: once
		// the run has two symbols every further word is part of the term,
		// relation words included ("keyword all Curious among any" is the
		// term "Curious among any"). Keywords (and, or, …) end the run.
		symbols := 1
		for (p.lx.kind == tokWord || p.lx.kind == tokString) && (symbols > 1 || !p.isRelation()) {
			word += " " + p.lx.val
			symbols++
			if err := p.lx.next(); err != nil {
				return nil, err
			}
		}
		if !p.isRelation() {
			if p.terms++; p.terms > MaxTerms {
				return nil, &Error{Msg: fmt.Sprintf("query has more than %d search clauses", MaxTerms), Pos: p.lx.at, TooManyTerms: true}
			}
			return &Term{Index: index, Relation: rel, Modifiers: mods, Value: word}, nil
		}
		// A relation word is kept as written (cql-java 1.13 matches the
		// named ones case-sensitively, so only a prefixed one can differ).
		rel = kindText[p.lx.kind]
		if p.lx.kind == tokWord {
			rel = p.lx.val
		}
		if symbols > 1 {
			// "a b = c": a relation makes sense only after a single symbol.
			return nil, errorf(p.lx.pos, "unexpected relation '%s'", rel)
		}
		index = word
		if err := p.lx.next(); err != nil {
			return nil, err
		}
		if mods, err = p.modifiers(); err != nil {
			return nil, err
		}
	}
}

// isRelation is cql-java 1.13's test for CQL 1.2 (the parser RMB and
// mod-search construct): a symbolic comparison, or a word that is exactly
// one of the named relations (case-sensitive: "ALL" is a word of the term)
// or contains a dot (a prefixed relation). "exact" and "scr" are relations
// of CQL 1.1 only.
func (p *parser) isRelation() bool {
	switch p.lx.kind {
	case tokEQ, tokEQEQ, tokNE, tokLT, tokLE, tokGT, tokGE:
		return true
	case tokWord:
		switch p.lx.val {
		case "any", "all", "adj", "within", "encloses":
			return true
		}
		return strings.Contains(p.lx.val, ".")
	}
	return false
}

func (p *parser) isComparison() bool {
	switch p.lx.kind {
	case tokEQ, tokEQEQ, tokNE, tokLT, tokLE, tokGT, tokGE:
		return true
	}
	return false
}

// symbol accepts a word, a quoted string or a keyword used as a plain word
// (cql-java lets "and", "sortby", … be indexes or terms).
func (p *parser) symbol(expected string) (string, error) {
	switch p.lx.kind {
	case tokWord, tokString, tokAnd, tokOr, tokNot, tokProx, tokSortby:
		v := p.lx.val
		return v, p.lx.next()
	}
	return "", errorf(p.lx.at, "expected %s, got %s", expected, p.lx.render())
}

func (p *parser) modifiers() ([]Modifier, error) {
	var mods []Modifier
	for p.lx.kind == tokSlash {
		if err := p.lx.next(); err != nil {
			return nil, err
		}
		if p.lx.kind != tokWord {
			return nil, errorf(p.lx.at, "expected modifier, got %s", p.lx.render())
		}
		m := Modifier{Name: strings.ToLower(p.lx.val)}
		if err := p.lx.next(); err != nil {
			return nil, err
		}
		if p.isComparison() {
			m.Op = kindText[p.lx.kind]
			if err := p.lx.next(); err != nil {
				return nil, err
			}
			v, err := p.symbol("modifier value")
			if err != nil {
				return nil, err
			}
			m.Value = v
		}
		mods = append(mods, m)
	}
	return mods, nil
}

package cql

import "strings"

// String renders the query back to CQL in a canonical form (every term
// quoted, a boolean right operand parenthesised) that Parse reads back to
// the same tree; the fuzz test holds it to that.
func (q *Query) String() string {
	var b strings.Builder
	writeNode(&b, q.Root)
	if len(q.Sort) > 0 {
		b.WriteString(" sortby")
		for _, k := range q.Sort {
			b.WriteByte(' ')
			b.WriteString(quoteSymbol(k.Index))
			writeModifiers(&b, k.Modifiers)
		}
	}
	return b.String()
}

func writeNode(b *strings.Builder, n Node) {
	switch n := n.(type) {
	case *Term:
		b.WriteString(quoteSymbol(n.Index))
		b.WriteByte(' ')
		b.WriteString(relationText(n.Relation))
		writeModifiers(b, n.Modifiers)
		b.WriteByte(' ')
		b.WriteString(quoteTerm(n.Value))
	case *Boolean:
		// Booleans are left-associative with one precedence, so only a
		// boolean on the right needs parentheses; a long and-chain stays
		// flat and re-parses within the nesting limit.
		writeNode(b, n.Left)
		b.WriteByte(' ')
		b.WriteString(n.Op)
		writeModifiers(b, n.Modifiers)
		b.WriteByte(' ')
		if _, ok := n.Right.(*Boolean); ok {
			b.WriteByte('(')
			writeNode(b, n.Right)
			b.WriteByte(')')
		} else {
			writeNode(b, n.Right)
		}
	}
}

func writeModifiers(b *strings.Builder, mods []Modifier) {
	for _, m := range mods {
		b.WriteByte('/')
		b.WriteString(escapeWord(m.Name))
		if m.Op != "" {
			b.WriteString(m.Op)
			b.WriteString(quoteSymbol(m.Value))
		}
	}
}

// relationText writes a relation: a comparison as its symbol, a relation word (all, cql.exact, …)
// as a word escaped like a modifier name, since a prefixed one may hold a quote or a parenthesis
// (`a \". b` has the relation `".`, which written bare would open a string).
func relationText(r string) string {
	switch r {
	case "=", "==", "<>", "<", "<=", ">", ">=":
		return r
	}
	return escapeWord(r)
}

// escapeWord writes a modifier name, which must stay an unquoted word,
// backslash-escaping the characters that would end it.
func escapeWord(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '\\' && i+1 < len(s) && strings.IndexByte(`*?^\`, s[i+1]) >= 0:
			b.WriteString(s[i : i+2])
			i++
		case strings.IndexByte("()/<>= \t\r\n\"\\", s[i]) >= 0:
			b.WriteByte('\\')
			b.WriteByte(s[i])
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

// quoteSymbol leaves a plain word (an index such as status.name) bare and
// quotes anything the lexer would split or read as a keyword.
func quoteSymbol(s string) string {
	if s == "" || strings.ContainsAny(s, "()/<>= \t\r\n\"\\") {
		return quoteTerm(s)
	}
	switch strings.ToLower(s) {
	case "and", "or", "not", "prox", "sortby":
		return quoteTerm(s)
	}
	return s
}

// quoteTerm quotes a term in its lexed form: backslash pairs (\* \? \^
// \\) are copied as they are and a double quote is escaped.
func quoteTerm(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '\\' && i+1 < len(s) && strings.IndexByte(`*?^\`, s[i+1]) >= 0:
			b.WriteString(s[i : i+2])
			i++
		case s[i] == '\\':
			b.WriteString(`\\`) // not lexer output; keep the backslash literal
		case s[i] == '"':
			b.WriteString(`\"`)
		default:
			b.WriteByte(s[i])
		}
	}
	b.WriteByte('"')
	return b.String()
}

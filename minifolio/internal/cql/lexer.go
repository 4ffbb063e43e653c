package cql

import "strings"

// tokenKind follows cql-java's CQLLexer token types.
type tokenKind int

const (
	tokEOF tokenKind = iota
	tokWord
	tokString // a "quoted string"
	tokLParen
	tokRParen
	tokSlash
	tokEQ   // =
	tokEQEQ // ==
	tokNE   // <>
	tokLT   // <
	tokLE   // <=
	tokGT   // >
	tokGE   // >=
	tokAnd
	tokOr
	tokNot
	tokProx
	tokSortby
)

// lexer splits a CQL string into tokens exactly where cql-java 1.13 does:
// words end at whitespace and at ( ) / < > = (a " inside a word is part of
// it; only a token that starts with " is a quoted string); keywords are
// case-insensitive.
type lexer struct {
	src  string
	pos  int // byte offset of the next unread character
	kind tokenKind
	val  string // word or string value (escapes processed, see unescapeInto)
	at   int    // byte offset where the current token starts
}

func newLexer(src string) *lexer {
	l := &lexer{src: src}
	return l
}

// next advances to the next token. An unterminated string is reported
// as an error (cql-java silently turns it into EOF and then complains
// about a missing term, which hides the real cause).
func (l *lexer) next() error {
	for l.pos < len(l.src) && strings.IndexByte(" \t\r\n", l.src[l.pos]) >= 0 {
		l.pos++
	}
	l.at = l.pos
	l.val = ""
	if l.pos >= len(l.src) {
		l.kind = tokEOF
		return nil
	}
	c := l.src[l.pos]
	switch c {
	case '(':
		l.kind, l.pos = tokLParen, l.pos+1
	case ')':
		l.kind, l.pos = tokRParen, l.pos+1
	case '/':
		l.kind, l.pos = tokSlash, l.pos+1
	case '<', '>', '=':
		l.pos++
		two := ""
		if l.pos < len(l.src) {
			two = string([]byte{c, l.src[l.pos]})
		}
		switch two {
		case "==":
			l.kind, l.pos = tokEQEQ, l.pos+1
		case "<=":
			l.kind, l.pos = tokLE, l.pos+1
		case ">=":
			l.kind, l.pos = tokGE, l.pos+1
		case "<>":
			l.kind, l.pos = tokNE, l.pos+1
		default:
			l.kind = tokEQ
			if c == '<' {
				l.kind = tokLT
			} else if c == '>' {
				l.kind = tokGT
			}
		}
	case '"':
		var b strings.Builder
		i := l.pos + 1
		for {
			if i >= len(l.src) {
				return errorf(l.at, "unterminated string: %s", l.src[l.at:])
			}
			if l.src[i] == '"' {
				break
			}
			i = unescapeInto(&b, l.src, i)
		}
		l.kind, l.val, l.pos = tokString, b.String(), i+1
	default:
		var b strings.Builder
		i := l.pos
		const delims = "()/<>= \t\r\n"
		for i < len(l.src) && strings.IndexByte(delims, l.src[i]) < 0 {
			if l.src[i] == '\\' && i+1 < len(l.src) && strings.IndexByte(delims, l.src[i+1]) >= 0 {
				// A backslash cannot carry a delimiter into an unquoted word
				// (cql-java ends the word there too): it stays a literal
				// backslash, so String() can write the word back unquoted.
				b.WriteString(`\\`)
				i++
				continue
			}
			i = unescapeInto(&b, l.src, i)
		}
		l.pos = i
		l.kind, l.val = tokWord, b.String()
		switch strings.ToLower(l.val) {
		case "and":
			l.kind = tokAnd
		case "or":
			l.kind = tokOr
		case "not":
			l.kind = tokNot
		case "prox":
			l.kind = tokProx
		case "sortby":
			l.kind = tokSortby
		}
	}
	return nil
}

// unescapeInto copies one (possibly escaped) character at src[i] into b
// and returns the index after it. Like cql-java's string lexing, a
// backslash is kept only before the masking characters * ? ^ and before
// itself, so the term still tells a literal "\*" from the wildcard "*";
// before anything else (notably ") it is dropped. cql-java leaves
// backslashes in unquoted words untouched; doing the same processing
// there means every stored term has one canonical form, which RMB then
// reads identically.
func unescapeInto(b *strings.Builder, src string, i int) int {
	if src[i] != '\\' {
		b.WriteByte(src[i])
		return i + 1
	}
	if i+1 >= len(src) {
		b.WriteString(`\\`) // a trailing lone backslash is itself, stored escaped
		return i + 1
	}
	if strings.IndexByte(`*?^\`, src[i+1]) >= 0 {
		b.WriteByte('\\')
	}
	b.WriteByte(src[i+1])
	return i + 2
}

// render names the current token the way cql-java's CQLLexer.render does,
// so error messages read the same.
func (l *lexer) render() string {
	switch l.kind {
	case tokEOF:
		return "EOF"
	case tokWord:
		return "word: '" + l.val + "'"
	case tokString:
		return `string: "` + l.val + `"`
	}
	t := kindText[l.kind]
	if len(t) == 1 {
		return "'" + t + "'" // cql-java quotes single characters only
	}
	return t
}

var kindText = map[tokenKind]string{
	tokLParen: "(", tokRParen: ")", tokSlash: "/", tokEQ: "=", tokEQEQ: "==", tokNE: "<>",
	tokLT: "<", tokLE: "<=", tokGT: ">", tokGE: ">=", tokAnd: "and", tokOr: "or", tokNot: "not",
	tokProx: "prox", tokSortby: "sortby",
}

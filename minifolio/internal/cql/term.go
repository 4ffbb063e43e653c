package cql

import (
	"regexp"
	"strings"
)

// part is one piece of a term: a literal run or an unescaped wildcard.
type part struct {
	lit  string
	wild byte // 0 for a literal, '*' (any run) or '?' (one character)
}

// parts splits a lexed term into literals and wildcards, resolving the
// backslash escapes the lexer kept (\* \? \^ \\). An unescaped ^ is
// CQL's anchoring mask, which RMB supports only on some index types; we
// reject it instead of matching the caret literally.
func parts(v string) ([]part, error) {
	var out []part
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			out = append(out, part{lit: lit.String()})
			lit.Reset()
		}
	}
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case c == '\\' && i+1 < len(v):
			i++
			lit.WriteByte(v[i])
		case c == '*' || c == '?':
			flush()
			out = append(out, part{wild: c})
		case c == '^':
			return nil, errorf(-1, "^ anchoring is not supported: %s", v)
		default:
			lit.WriteByte(c)
		}
	}
	flush()
	return out, nil
}

func hasWildcard(ps []part) bool {
	for _, p := range ps {
		if p.wild != 0 {
			return true
		}
	}
	return false
}

func literal(ps []part) string {
	var b strings.Builder
	for _, p := range ps {
		b.WriteString(p.lit)
	}
	return b.String()
}

// likePattern turns parts into a LIKE pattern (default escape character
// backslash): literal % _ \ are escaped, * → %, ? → _.
func likePattern(ps []part) string {
	var b strings.Builder
	for _, p := range ps {
		switch p.wild {
		case '*':
			b.WriteByte('%')
		case '?':
			b.WriteByte('_')
		default:
			for i := 0; i < len(p.lit); i++ {
				if c := p.lit[i]; c == '%' || c == '_' || c == '\\' {
					b.WriteByte('\\')
				}
				b.WriteByte(p.lit[i])
			}
		}
	}
	return b.String()
}

var uuidRe = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// uuidPrefixRe is a leading part of the canonical UUID text.
var uuidPrefixRe = regexp.MustCompile(`^[0-9a-fA-F-]{0,35}$`)

const uuidTemplate = "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx"

// uuidRange gives the lowest and highest UUID starting with prefix, so a
// right-truncated id (RMB allows id=="12ab*") becomes an index range.
func uuidRange(prefix string) (lo, hi string, ok bool) {
	if !uuidPrefixRe.MatchString(prefix) {
		return "", "", false
	}
	for i := 0; i < len(prefix); i++ {
		if (uuidTemplate[i] == '-') != (prefix[i] == '-') {
			return "", "", false
		}
	}
	rest := uuidTemplate[len(prefix):]
	p := strings.ToLower(prefix)
	return p + strings.ReplaceAll(rest, "x", "0"), p + strings.ReplaceAll(rest, "x", "f"), true
}

// numberRe is a JSON number for /number. The length bounds keep it far
// inside the range of PostgreSQL's numeric.
var numberRe = regexp.MustCompile(`^-?[0-9]{1,30}(\.[0-9]{1,30})?([eE][+-]?[0-9]{1,3})?$`)

// pathRe is an RMB index name: dot-separated JSON property names. Names
// are written into the SQL text (they must match the index expression
// exactly), so only these characters are accepted.
var pathRe = regexp.MustCompile(`^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$`)

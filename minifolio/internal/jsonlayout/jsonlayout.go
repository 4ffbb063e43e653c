// Package jsonlayout re-writes JSON text in the byte layout FOLIO's modules
// put on the wire. The same document reaches clients in two layouts:
//
//   - RMB modules (mod-users, mod-inventory-storage, mod-login, …) encode with
//     Jackson's default generator: compact, no space after ':' or ','. Their
//     records come out of PostgreSQL's jsonb, whose text form has those spaces
//     (`{"a": 1}`), and RMB re-encodes them compactly.
//   - mod-circulation and mod-inventory answer with Vert.x's
//     Json.encodePrettily, Jackson's DefaultPrettyPrinter: one object member
//     per line, two-space indent, `"key" : value`, arrays inline (`[ 1, 2 ]`),
//     `{ }` and `[ ]` when empty, no trailing newline. Clients match that text:
//     PTF's check-out assertion looks for `"id" : `.
//
// Jackson leaves <, >, & and U+2028/U+2029 unescaped; Go's encoding/json
// escapes them (\u003c…), so both layouts turn those escapes back into the
// characters. The key order is the input's.
package jsonlayout

// Compact is Jackson's default (compact) layout of src.
func Compact(src []byte) []byte { return layout(src, false) }

// Pretty is Jackson's DefaultPrettyPrinter layout of src (Vert.x encodePrettily).
func Pretty(src []byte) []byte { return layout(src, true) }

type frame struct {
	object  bool
	entries int
	wantKey bool
}

// layout re-emits src token by token; src must be valid JSON (it comes from
// encoding/json or PostgreSQL). Anything it does not recognise is copied.
func layout(src []byte, pretty bool) []byte {
	extra := 0
	if pretty {
		extra = len(src) / 2
	}
	out := make([]byte, 0, len(src)+extra)
	var stack []frame
	nesting := 0 // object depth: Jackson's arrays are inline and do not indent
	indent := func() {
		out = append(out, '\n')
		for i := 0; i < nesting; i++ {
			out = append(out, ' ', ' ')
		}
	}
	// beforeValue writes the separator an array element needs.
	beforeValue := func() {
		if len(stack) == 0 {
			return
		}
		f := &stack[len(stack)-1]
		if f.object {
			return
		}
		if f.entries > 0 {
			out = append(out, ',')
		}
		if pretty {
			out = append(out, ' ')
		}
		f.entries++
	}
	for i := 0; i < len(src); {
		c := src[i]
		switch c {
		case ' ', '\t', '\n', '\r', ',':
			if c == ',' && len(stack) > 0 && stack[len(stack)-1].object {
				stack[len(stack)-1].wantKey = true
			}
			i++
		case ':':
			if pretty {
				out = append(out, " : "...)
			} else {
				out = append(out, ':')
			}
			i++
		case '{', '[':
			beforeValue()
			out = append(out, c)
			if c == '{' && pretty {
				nesting++
			}
			stack = append(stack, frame{object: c == '{', wantKey: c == '{'})
			i++
		case '}', ']':
			var f frame
			if len(stack) > 0 {
				f = stack[len(stack)-1]
				stack = stack[:len(stack)-1]
			}
			if pretty {
				if c == '}' {
					nesting--
					if f.entries > 0 {
						indent()
					} else {
						out = append(out, ' ')
					}
				} else {
					out = append(out, ' ')
				}
			}
			out = append(out, c)
			i++
		case '"':
			if n := len(stack); n > 0 && stack[n-1].object && stack[n-1].wantKey {
				f := &stack[n-1]
				if f.entries > 0 {
					out = append(out, ',')
				}
				if pretty {
					indent()
				}
				f.entries++
				f.wantKey = false
			} else {
				beforeValue()
			}
			i = copyString(&out, src, i)
		default:
			beforeValue()
			j := i
			for j < len(src) && !delimiter(src[j]) {
				j++
			}
			if j == i {
				j++ // not JSON: copy the byte rather than loop
			}
			out = append(out, src[i:j]...)
			i = j
		}
	}
	return out
}

func delimiter(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', ',', ':', '{', '}', '[', ']', '"':
		return true
	}
	return false
}

// copyString copies the string literal starting at src[i] (a quote) to out,
// turning Go's HTML and line-separator escapes into the characters Jackson
// writes raw, and returns the index after the closing quote.
func copyString(out *[]byte, src []byte, i int) int {
	o := append(*out, '"')
	i++
	for i < len(src) {
		c := src[i]
		switch {
		case c == '"':
			*out = append(o, '"')
			return i + 1
		case c == '\\' && i+1 < len(src):
			if src[i+1] == 'u' && i+6 <= len(src) {
				if r, ok := unescaped(src[i+2 : i+6]); ok {
					o = append(o, r...)
					i += 6
					continue
				}
			}
			o = append(o, c, src[i+1])
			i += 2
		default:
			o = append(o, c)
			i++
		}
	}
	*out = o
	return i
}

func unescaped(hex []byte) ([]byte, bool) {
	h := string(hex)
	switch h {
	case "003c", "003C":
		return []byte("<"), true
	case "003e", "003E":
		return []byte(">"), true
	case "0026":
		return []byte("&"), true
	case "2028":
		return []byte("\u2028"), true
	case "2029":
		return []byte("\u2029"), true
	}
	return nil, false
}

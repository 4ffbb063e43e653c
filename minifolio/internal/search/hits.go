package search

import (
	"bytes"
	"errors"
	"strconv"
)

// errHits: OpenSearch's answer is not the JSON its filter_path promises.
var errHits = errors.New("OpenSearch's search answer is not valid JSON")

// appendHits appends mod-search's result body, {"totalRecords":n,"<key>":[...]},
// built from a _search answer filtered to hits.total.value and
// hits.hits._source. Each _source is copied as bytes, never decoded: a search
// answer of 100 instances is tens of KB, and decoding it (even into
// json.RawMessage, which still validates and copies every byte) was the
// largest share of mod-search's CPU per search. Keys other than those are
// skipped. Truncated input, unbalanced brackets or strings, and a structure
// around the sources that is not the filtered answer's are errors, never a
// panic (FuzzAppendHits); the inside of a _source is not validated (a value
// such as {"a":1 "b":2} is copied as it came), because checking every byte is
// the cost this avoids and OpenSearch writes its stored _source as valid JSON.
func appendHits(out, b []byte, key string) ([]byte, error) {
	s := &hitScanner{b: b}
	total := 0
	var sources [][2]int // spans of b
	// A repeated key replaces what the earlier one said, as in a decoder.
	err := s.object(func(k []byte) error {
		if string(k) != "hits" {
			return s.skip()
		}
		total, sources = 0, sources[:0]
		return s.object(func(k []byte) error {
			switch string(k) {
			case "total":
				total = 0
				return s.object(func(k []byte) error {
					if string(k) != "value" {
						return s.skip()
					}
					start := s.i
					if err := s.skip(); err != nil {
						return err
					}
					n, err := strconv.Atoi(string(s.b[start:s.i]))
					if err != nil {
						return errHits
					}
					total = n
					return nil
				})
			case "hits":
				sources = sources[:0]
				return s.array(func() error {
					src := [2]int{-1, -1}
					err := s.object(func(k []byte) error {
						if string(k) != "_source" {
							return s.skip()
						}
						start := s.i
						if err := s.skip(); err != nil {
							return err
						}
						src = [2]int{start, s.i}
						return nil
					})
					if src[0] >= 0 {
						sources = append(sources, src)
					}
					return err
				})
			}
			return s.skip()
		})
	})
	if err != nil {
		return out, err
	}
	if s.ws(); s.i != len(b) {
		return out, errHits
	}
	out = append(out, `{"totalRecords":`...)
	out = strconv.AppendInt(out, int64(total), 10)
	out = append(out, `,"`...)
	out = append(out, key...)
	out = append(out, `":[`...)
	for i, sp := range sources {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, b[sp[0]:sp[1]]...)
	}
	return append(out, "]}"...), nil
}

// hitScanner walks JSON text just far enough to find values and their
// extent; it checks structure (brackets, strings, separators), not the
// grammar of numbers and literals, which OpenSearch writes.
type hitScanner struct {
	b []byte
	i int
}

func (s *hitScanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// peek skips white space and returns the next byte (0 at the end).
func (s *hitScanner) peek() byte {
	s.ws()
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

// str reads a string starting at s.i and returns its raw content, escapes
// kept.
func (s *hitScanner) str() ([]byte, error) {
	if s.peek() != '"' {
		return nil, errHits
	}
	start := s.i + 1
	for i := start; i < len(s.b); i++ {
		switch s.b[i] {
		case '\\':
			i++
		case '"':
			s.i = i + 1
			return s.b[start:i], nil
		}
	}
	return nil, errHits
}

// object calls member once per key, with s.i at the key's value; member must
// consume the value.
func (s *hitScanner) object(member func(key []byte) error) error {
	if s.peek() != '{' {
		return errHits
	}
	s.i++
	if s.peek() == '}' {
		s.i++
		return nil
	}
	for {
		k, err := s.str()
		if err != nil {
			return err
		}
		if bytes.IndexByte(k, '\\') >= 0 {
			return errHits // an escaped key: OpenSearch writes none
		}
		if s.peek() != ':' {
			return errHits
		}
		s.i++
		s.ws()
		if err := member(k); err != nil {
			return err
		}
		switch s.peek() {
		case ',':
			s.i++
		case '}':
			s.i++
			return nil
		default:
			return errHits
		}
	}
}

// array calls elem once per element, with s.i at the element.
func (s *hitScanner) array(elem func() error) error {
	if s.peek() != '[' {
		return errHits
	}
	s.i++
	if s.peek() == ']' {
		s.i++
		return nil
	}
	for {
		s.ws()
		if err := elem(); err != nil {
			return err
		}
		switch s.peek() {
		case ',':
			s.i++
		case ']':
			s.i++
			return nil
		default:
			return errHits
		}
	}
}

// skip moves s.i past one value. Objects and arrays are skipped by counting
// brackets outside strings, which is what makes copying a _source cheap: a
// missing comma or colon inside them goes unnoticed (see appendHits).
func (s *hitScanner) skip() error {
	switch c := s.peek(); c {
	case 0, '}', ']', ',', ':':
		return errHits
	case '"':
		_, err := s.str()
		return err
	case '{', '[':
		var stack []byte
		for ; s.i < len(s.b); s.i++ {
			switch c := s.b[s.i]; c {
			case '"':
				if _, err := s.str(); err != nil {
					return err
				}
				s.i-- // the loop's increment steps past the closing quote
			case '{', '[':
				stack = append(stack, c)
			case '}', ']':
				if len(stack) == 0 || stack[len(stack)-1] != c-2 { // '{'+2 == '}', '['+2 == ']'
					return errHits
				}
				stack = stack[:len(stack)-1]
				if len(stack) == 0 {
					s.i++
					return nil
				}
			}
		}
		return errHits
	default:
		start := s.i
		for s.i < len(s.b) && bytes.IndexByte([]byte(",}] \t\n\r"), s.b[s.i]) < 0 {
			s.i++
		}
		if s.i == start {
			return errHits
		}
		return nil
	}
}

package influxout

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"go.k6.io/k6/metrics"
)

// FieldKind is the type a tag's value is written as when the tag is
// configured as a field (K6_INFLUXDB_TAGS_AS_FIELDS "name:kind"), as in k6's
// influxdb output.
type FieldKind int

// The kinds of K6_INFLUXDB_TAGS_AS_FIELDS.
const (
	String FieldKind = iota
	Int
	Float
	Bool
)

// tagField is one tag written as a field instead.
type tagField struct {
	name string
	kind FieldKind
}

// encoder writes samples as InfluxDB line protocol, byte for byte what k6's
// influxdb output sends through influxdb1-client for the same samples
// (encode_test.go checks it against that client): measurement, the sorted
// tags except those written as fields (empty values left out), the fields
// sorted by name, and the time in nanoseconds.
//
// The tag section of a TagSet is encoded once per batch: every sample of one
// request shares its TagSet (k6 interns them), so a request's eleven http_*
// samples cost one tag encoding instead of eleven maps, sorts and escapes.
type encoder struct {
	fields []tagField // sorted by name
	cache  map[*metrics.TagSet]encodedTags
}

// encodedTags is what a TagSet contributes to a line: ",k=v,..." and the
// fields made from tags, already encoded as `name=value` (sorted by name).
type encodedTags struct {
	tags   string
	fields []field
}

type field struct {
	name    string // as configured: fields are sorted by it
	key     string // escaped
	encoded string // escaped value, with its type suffix or quotes
}

func newEncoder(fields []tagField) *encoder {
	fs := slices.Clone(fields)
	slices.SortFunc(fs, func(a, b tagField) int { return strings.Compare(a.name, b.name) })
	return &encoder{fields: fs, cache: map[*metrics.TagSet]encodedTags{}}
}

// reset forgets the encoded TagSets: called after each batch, so a run whose
// URLs make every request's TagSet unique does not grow the cache.
func (e *encoder) reset() { clear(e.cache) }

// appendSample appends one line (with its newline). A sample whose value
// InfluxDB cannot store (NaN, ±Inf) is skipped. Here k6's output differs: the
// client refuses such a point and k6 drops the whole batch with it.
func (e *encoder) appendSample(b []byte, s metrics.Sample) []byte {
	if math.IsNaN(s.Value) || math.IsInf(s.Value, 0) {
		return b
	}
	t, ok := e.cache[s.Tags]
	if !ok {
		t = e.encodeTags(s.Tags)
		e.cache[s.Tags] = t
	}
	b = appendEscaped(b, s.Metric.Name, measurementEscapes)
	b = append(b, t.tags...)
	b = append(b, ' ')
	// Fields sorted by name; "value" takes its place among the tag fields.
	wroteValue := false
	sep := false
	for _, f := range t.fields {
		if !wroteValue && f.name > "value" {
			b = appendValue(b, sep, s.Value)
			wroteValue, sep = true, true
		}
		if sep {
			b = append(b, ',')
		}
		b = append(b, f.key...)
		b = append(b, '=')
		b = append(b, f.encoded...)
		sep = true
	}
	if !wroteValue {
		b = appendValue(b, sep, s.Value)
	}
	if !s.Time.IsZero() {
		b = append(b, ' ')
		b = strconv.AppendInt(b, s.Time.UnixNano(), 10)
	}
	return append(b, '\n')
}

func appendValue(b []byte, sep bool, v float64) []byte {
	if sep {
		b = append(b, ',')
	}
	b = append(b, "value="...)
	return strconv.AppendFloat(b, v, 'f', -1, 64)
}

func (e *encoder) encodeTags(ts *metrics.TagSet) encodedTags {
	m := ts.Map()
	var out encodedTags
	for _, f := range e.fields {
		v, ok := m[f.name]
		if !ok {
			continue
		}
		delete(m, f.name)
		if f.name == "value" {
			continue // k6's output overwrites such a field with the sample's value
		}
		out.fields = append(out.fields, field{name: f.name, key: escapeString(f.name, keyEscapes), encoded: encodeField(f.kind, v)})
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b []byte
	for _, k := range keys {
		v := m[k]
		if v == "" {
			continue // the client leaves empty tag values out: InfluxDB rejects them
		}
		b = append(b, ',')
		b = appendEscaped(b, k, tagEscapes)
		b = append(b, '=')
		b = appendEscaped(b, v, tagEscapes)
	}
	out.tags = string(b)
	return out
}

// encodeField is a tag value as a field of its configured kind; a value that
// does not parse as that kind is written as a string, as k6's output does.
func encodeField(kind FieldKind, v string) string {
	switch kind {
	case Int:
		if n, err := strconv.ParseInt(v, 10, 64); err == nil {
			return strconv.FormatInt(n, 10) + "i"
		}
	case Float:
		if n, err := strconv.ParseFloat(v, 64); err == nil && !math.IsNaN(n) && !math.IsInf(n, 0) {
			return strconv.FormatFloat(n, 'f', -1, 64)
		}
	case Bool:
		if n, err := strconv.ParseBool(v); err == nil {
			return strconv.FormatBool(n)
		}
	}
	return `"` + stringFieldEscaper.Replace(v) + `"`
}

// Line protocol escaping, as influxdb1-client's models package does it.
var (
	measurementEscapes = ", "
	tagEscapes         = ", ="
	keyEscapes         = `, ="` // field keys
	stringFieldEscaper = strings.NewReplacer(`"`, `\"`, `\`, `\\`)
)

// appendEscaped appends a measurement, tag key, tag value or field key. Two
// things line protocol cannot carry there are rewritten (influxdb1-client, and
// so k6's own output, sends them as they are, and InfluxDB 1.x then stores the
// rest of the line as another point, or refuses the write): a line break, written
// as the two characters \n (or \r), which InfluxDB keeps as they are; and
// backslashes at the end, written as %5C each (their URL encoding). InfluxDB
// 1.x takes a separator right after a backslash as escaped, so a trailing
// backslash cannot be written in any form ("invalid tag format"); one before an
// escaped character is fine and stays.
func appendEscaped(b []byte, s, special string) []byte {
	tail := len(s)
	for tail > 0 && s[tail-1] == '\\' {
		tail--
	}
	if tail == len(s) && !strings.ContainsAny(s, special) && !strings.ContainsAny(s, "\n\r") {
		return append(b, s...)
	}
	for i := 0; i < tail; i++ {
		switch c := s[i]; {
		case c == '\n':
			b = append(b, `\n`...)
		case c == '\r':
			b = append(b, `\r`...)
		case strings.IndexByte(special, c) >= 0:
			b = append(b, '\\', c)
		default:
			b = append(b, c)
		}
	}
	return append(b, strings.Repeat("%5C", len(s)-tail)...)
}

func escapeString(s, special string) string { return string(appendEscaped(nil, s, special)) }

package search

import (
	"bytes"
	"encoding/json"
	"io"
	"strconv"
	"testing"
)

// decodeHits is the reference appendHits must agree with: the answer decoded
// by encoding/json into generic values (exact key names, the last of a
// repeated key wins), sources re-encoded. ok false: the answer has not the
// shape of a search answer.
func decodeHits(b []byte, key string) (out []byte, ok bool) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var top any
	if err := d.Decode(&top); err != nil || d.More() {
		return nil, false
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, false
	}
	root, ok := top.(map[string]any)
	if !ok {
		return nil, false
	}
	total := int64(0)
	var sources []any
	if h, present := root["hits"]; present {
		hits, ok := h.(map[string]any)
		if !ok {
			return nil, false
		}
		if t, present := hits["total"]; present {
			tm, ok := t.(map[string]any)
			if !ok {
				return nil, false
			}
			if v, present := tm["value"]; present {
				n, ok := v.(json.Number)
				if !ok {
					return nil, false
				}
				if total, ok = parseInt(string(n)); !ok {
					return nil, false
				}
			}
		}
		if l, present := hits["hits"]; present {
			list, ok := l.([]any)
			if !ok {
				return nil, false
			}
			for _, e := range list {
				em, ok := e.(map[string]any)
				if !ok {
					return nil, false
				}
				if src, present := em["_source"]; present {
					sources = append(sources, src)
				}
			}
		}
	}
	if sources == nil {
		sources = []any{}
	}
	out, _ = json.Marshal(map[string]any{"totalRecords": total, key: sources})
	return out, true
}

func parseInt(s string) (int64, bool) {
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}

// sameJSON: a and b are the same JSON value (numbers compared as text).
func sameJSON(a, b []byte) bool {
	norm := func(x []byte) ([]byte, bool) {
		d := json.NewDecoder(bytes.NewReader(x))
		d.UseNumber()
		var v any
		if d.Decode(&v) != nil {
			return nil, false
		}
		y, _ := json.Marshal(v)
		return y, true
	}
	x, okA := norm(a)
	y, okB := norm(b)
	return okA && okB && bytes.Equal(x, y)
}

var hitsCases = []struct {
	name, in, want string // want "" means an error
}{
	{"two hits", `{"hits":{"total":{"value":2},"hits":[{"_source":{"id":"a","title":"x"}},{"_source":{"id":"b"}}]}}`,
		`{"totalRecords":2,"instances":[{"id":"a","title":"x"},{"id":"b"}]}`},
	{"no hits: filter_path drops hits.hits", `{"hits":{"total":{"value":0}}}`, `{"totalRecords":0,"instances":[]}`},
	{"nothing at all", `{}`, `{"totalRecords":0,"instances":[]}`},
	{"strings with brackets, quotes and escapes",
		`{"hits":{"total":{"value":1},"hits":[{"_source":{"t":"a } ] { [ \" \\ \u003c","n":[1,{"x":"]"}]}}]}}`,
		`{"totalRecords":1,"instances":[{"t":"a } ] { [ \" \\ \u003c","n":[1,{"x":"]"}]}]}`},
	{"other keys are skipped", `{"took":3,"hits":{"max_score":1.5,"total":{"relation":"eq","value":7},"hits":[{"_id":"x","_score":null,"_source":{"a":true}}]},"x":[1,[2]]}`,
		`{"totalRecords":7,"instances":[{"a":true}]}`},
	{"white space between tokens", " { \"hits\" : { \"total\" : { \"value\" : 1 } , \"hits\" : [ { \"_source\" : {\"a\": 1} } ] } } ",
		`{"totalRecords":1,"instances":[{"a": 1}]}`},
	{"a hit without _source", `{"hits":{"total":{"value":1},"hits":[{"_id":"x"}]}}`, `{"totalRecords":1,"instances":[]}`},
	{"truncated", `{"hits":{"total":{"value":1},"hits":[{"_source":{"a":"b`, ""},
	{"unbalanced", `{"hits":{"total":{"value":1},"hits":[{"_source":{"a":[}]}}`, ""},
	{"trailing text", `{"hits":{}} x`, ""},
	{"total not a number", `{"hits":{"total":{"value":"many"}}}`, ""},
	{"empty", ``, ""},
	{"not an object", `[1]`, ""},
}

func TestAppendHits(t *testing.T) {
	for _, c := range hitsCases {
		t.Run(c.name, func(t *testing.T) {
			got, err := appendHits(nil, []byte(c.in), "instances")
			if c.want == "" {
				if err == nil {
					t.Fatalf("want an error, got %s", got)
				}
				return
			}
			if err != nil || string(got) != c.want {
				t.Fatalf("got %s, %v; want %s", got, err, c.want)
			}
			if ref, ok := decodeHits([]byte(c.in), "instances"); !ok || !sameJSON(ref, got) {
				t.Fatalf("encoding/json reads it as %s (ok %v)", ref, ok)
			}
		})
	}
}

// FuzzAppendHits: whatever OpenSearch sends, appendHits never panics, and
// when it accepts a valid answer, its body is the one a JSON decoder reads
// from it (it may refuse shapes OpenSearch never writes, such as a total of
// 1e2).
func FuzzAppendHits(f *testing.F) {
	for _, c := range hitsCases {
		f.Add(c.in)
	}
	f.Fuzz(func(t *testing.T, in string) {
		got, err := appendHits(nil, []byte(in), "instances")
		if err != nil || !json.Valid([]byte(in)) {
			return
		}
		ref, ok := decodeHits([]byte(in), "instances")
		if !ok {
			t.Fatalf("%q: accepted as %s, but it is no search answer", in, got)
		}
		if !sameJSON(got, ref) {
			t.Fatalf("%q: got %s, a decoder reads %s", in, got, ref)
		}
	})
}

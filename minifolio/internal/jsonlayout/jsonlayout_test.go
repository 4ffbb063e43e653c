package jsonlayout

import (
	"encoding/json"
	"testing"
)

// Expected bytes are Jackson 2's DefaultPrettyPrinter output (what Vert.x's
// Json.encodePrettily gives mod-circulation) and its default generator's.
func TestLayouts(t *testing.T) {
	for _, c := range []struct {
		name, in, compact, pretty string
	}{
		{"flat object", `{"id":"a1","n":2}`, `{"id":"a1","n":2}`, "{\n  \"id\" : \"a1\",\n  \"n\" : 2\n}"},
		{"PostgreSQL jsonb text", `{"a": 1, "b": [1, 2], "c": {"d": null}}`, `{"a":1,"b":[1,2],"c":{"d":null}}`,
			"{\n  \"a\" : 1,\n  \"b\" : [ 1, 2 ],\n  \"c\" : {\n    \"d\" : null\n  }\n}"},
		{"empty containers", `{"o":{},"a":[]}`, `{"o":{},"a":[]}`, "{\n  \"o\" : { },\n  \"a\" : [ ]\n}"},
		{"objects in an array", `{"errors":[{"message":"x","parameters":[{"key":"k","value":"v"}]},{"m":true}]}`,
			`{"errors":[{"message":"x","parameters":[{"key":"k","value":"v"}]},{"m":true}]}`,
			"{\n  \"errors\" : [ {\n    \"message\" : \"x\",\n    \"parameters\" : [ {\n      \"key\" : \"k\",\n      \"value\" : \"v\"\n    } ]\n  }, {\n    \"m\" : true\n  } ]\n}"},
		{"top-level array", `[1,"a"]`, `[1,"a"]`, `[ 1, "a" ]`},
		{"strings keep their bytes", `{"s":"a, b: {c} [d] \"e\" \\u003c é"}`, `{"s":"a, b: {c} [d] \"e\" \\u003c é"}`,
			"{\n  \"s\" : \"a, b: {c} [d] \\\"e\\\" \\\\u003c é\"\n}"},
		{"Go's HTML escapes undone", `{"t":"\u003cb\u003e \u0026 \u2028"}`, "{\"t\":\"<b> & \u2028\"}", "{\n  \"t\" : \"<b> & \u2028\"\n}"},
		{"numbers", `{"x":-1.5e3,"y":0}`, `{"x":-1.5e3,"y":0}`, "{\n  \"x\" : -1.5e3,\n  \"y\" : 0\n}"},
	} {
		if got := string(Compact([]byte(c.in))); got != c.compact {
			t.Errorf("%s: Compact\n got %q\nwant %q", c.name, got, c.compact)
		}
		got := Pretty([]byte(c.in))
		if string(got) != c.pretty {
			t.Errorf("%s: Pretty\n got %q\nwant %q", c.name, got, c.pretty)
		}
		var a, b any
		if json.Unmarshal([]byte(c.in), &a) != nil || json.Unmarshal(got, &b) != nil {
			t.Errorf("%s: not JSON after layout: %q", c.name, got)
		}
	}
	// What encoding/json escapes comes back as Jackson writes it.
	b, _ := json.Marshal(map[string]string{"q": "<a&b>"})
	if got := string(Compact(b)); got != `{"q":"<a&b>"}` {
		t.Errorf("json.Marshal output: %s", got)
	}
}

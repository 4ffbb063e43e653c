package influxout

import (
	"math"
	"strings"
	"testing"
	"time"

	client "github.com/influxdata/influxdb1-client/v2"
	"go.k6.io/k6/metrics"
)

// oracle is what k6's built-in influxdb output sends for one sample: the
// sample's tags as a map, the tags-as-fields moved to the fields (converted
// to their kind, or left a string when they do not parse), "value", then
// influxdb1-client's Point in line protocol (output.go's batchFromSamples and
// extractTagsToValues in go.k6.io/k6/internal/output/influxdb).
func oracle(t *testing.T, fields []tagField, s metrics.Sample) string {
	t.Helper()
	tags := s.Tags.Map()
	values := map[string]any{}
	for _, f := range fields {
		v, ok := tags[f.name]
		if !ok {
			continue
		}
		delete(tags, f.name)
		values[f.name] = typed(f.kind, v)
	}
	values["value"] = s.Value
	p, err := client.NewPoint(s.Metric.Name, tags, values, s.Time)
	if err != nil {
		t.Fatalf("influxdb1-client refused the sample: %v", err)
	}
	return p.PrecisionString("") + "\n"
}

func typed(kind FieldKind, v string) any {
	var out any = v
	var err error
	switch kind {
	case Int:
		var n int64
		if n, err = parseInt(v); err == nil {
			out = n
		}
	case Float:
		var f float64
		if f, err = parseFloat(v); err == nil {
			out = f
		}
	case Bool:
		var b bool
		if b, err = parseBool(v); err == nil {
			out = b
		}
	}
	return out
}

func TestEncodingMatchesK6sInfluxDBOutput(t *testing.T) {
	reg := metrics.NewRegistry()
	trend := reg.MustNewMetric("http_req_duration", metrics.Trend, metrics.Time)
	odd := reg.MustNewMetric("transaction_failed", metrics.Rate)
	root := reg.RootTagSet()
	at := time.Date(2026, 11, 23, 1, 2, 3, 456789012, time.UTC)

	tagSets := []*metrics.TagSet{
		root,
		root.With("name", "GET /users").With("method", "GET").With("status", "200").With("testid", "cico-1").
			With("url", "http://127.0.0.1:9130/users?query=%28barcode%3D%3D%22u1%22%29&limit=1"),
		root.With("name", "a b,c=d").With("check", `say "hi" \ there`).With("empty", "").With("url", `x"y\z`),
		root.With("vu", "12").With("iter", "x7").With("flag", "true").With("ratio", "0.25").With("ratio2", "NaN"),
		root.With("zzz", "last").With("aaa", "first").With("value_x", "v"),
		root.With("value", "3.5").With("vu", "7").With("name", "x"),
		root.With("ünïcode", "ключ=значение"),
	}
	configs := map[string][]tagField{
		"default":           {{"vu", String}, {"iter", String}, {"url", String}},
		"typed":             {{"vu", Int}, {"iter", Int}, {"flag", Bool}, {"ratio", Float}, {"url", String}},
		"after value":       {{"zzz", String}, {"aaa", String}, {"check", String}},
		"a tag named value": {{"value", Float}, {"vu", Int}},
		"none":              nil,
	}
	values := []float64{0, 1, 12.5, 1e-9, 123456789.123, -3, math.MaxFloat64}
	typedLines := 0
	for cname, fields := range configs {
		enc := newEncoder(fields)
		for _, ts := range tagSets {
			for _, v := range values {
				for _, m := range []*metrics.Metric{trend, odd} {
					s := metrics.Sample{TimeSeries: metrics.TimeSeries{Metric: m, Tags: ts}, Time: at, Value: v}
					got := string(enc.appendSample(nil, s))
					want := oracle(t, fields, s)
					if cname == "typed" && strings.Contains(want, "vu=12i") && strings.Contains(want, "flag=true") && strings.Contains(want, "ratio=0.25") {
						typedLines++ // int, bool and float fields in one line
					}
					if got != want {
						t.Errorf("config %s, tags %v, value %v:\n got  %q\n want %q", cname, ts.Map(), v, got, want)
					}
				}
			}
		}
		enc.reset()
	}
	if typedLines == 0 {
		t.Error("no line had int, bool and float fields: the typed kinds were not compared")
	}
}

func TestEncodingSkipsWhatInfluxDBCannotStore(t *testing.T) {
	reg := metrics.NewRegistry()
	m := reg.MustNewMetric("vus", metrics.Gauge)
	enc := newEncoder(nil)
	for _, v := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		s := metrics.Sample{TimeSeries: metrics.TimeSeries{Metric: m, Tags: reg.RootTagSet()}, Time: time.Now(), Value: v}
		if got := enc.appendSample(nil, s); len(got) != 0 {
			t.Errorf("value %v: wrote %q, want nothing", v, got)
		}
	}
}

func TestTagEncodingIsReusedWithinABatchOnly(t *testing.T) {
	reg := metrics.NewRegistry()
	m := reg.MustNewMetric("http_reqs", metrics.Counter)
	ts := reg.RootTagSet().With("name", "GET /users")
	enc := newEncoder(nil)
	s := metrics.Sample{TimeSeries: metrics.TimeSeries{Metric: m, Tags: ts}, Time: time.Unix(1, 0), Value: 1}
	a := enc.appendSample(nil, s)
	b := enc.appendSample(nil, s)
	if string(a) != string(b) || len(enc.cache) != 1 {
		t.Fatalf("same TagSet twice: %q, %q, cache %d entries (want the same line and one entry)", a, b, len(enc.cache))
	}
	enc.reset()
	if len(enc.cache) != 0 {
		t.Fatalf("reset left %d cache entries", len(enc.cache))
	}
}

// BenchmarkEncode compares the encoder with what k6's output does per sample
// (tag map, influxdb1-client Point, line protocol), for a CICO request's tags.
func BenchmarkEncode(b *testing.B) {
	reg := metrics.NewRegistry()
	names := []string{"http_reqs", "http_req_duration", "http_req_blocked", "http_req_connecting", "http_req_tls_handshaking",
		"http_req_sending", "http_req_waiting", "http_req_receiving", "http_req_failed", "data_sent", "data_received"}
	var ms []*metrics.Metric
	for _, n := range names {
		ms = append(ms, reg.MustNewMetric(n, metrics.Trend))
	}
	ts := reg.RootTagSet().With("testid", "cico-20261123T000000Z-fast").With("workflow", "cico").With("release", "fast").
		With("target", "local").With("name", "GET /circulation/loans").With("method", "GET").With("status", "200").
		With("proto", "HTTP/1.1").With("scenario", "vus_20").With("vus", "20").With("expected_response", "true").
		With("url", "http://127.0.0.1:9130/circulation/loans?query=%28userId%3D%3Da1b5a7d2-1111-4222-8333-444455556666%29&limit=1")
	now := time.Now()
	fields := []tagField{{"vu", String}, {"iter", String}, {"url", String}}
	b.Run("folio-perf", func(b *testing.B) {
		enc := newEncoder(fields)
		var buf []byte
		for i := 0; i < b.N; i++ {
			for _, m := range ms {
				buf = enc.appendSample(buf[:0], metrics.Sample{TimeSeries: metrics.TimeSeries{Metric: m, Tags: ts}, Time: now, Value: 1.5})
			}
			enc.reset()
		}
	})
	b.Run("k6-influxdb", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			for _, m := range ms {
				tags := ts.Map()
				values := map[string]any{"url": tags["url"], "value": 1.5}
				delete(tags, "url")
				p, _ := client.NewPoint(m.Name, tags, values, now)
				_ = p.PrecisionString("")
			}
		}
	})
}

// What line protocol cannot carry in a tag is rewritten so that each sample
// stays one line InfluxDB parses (influxdb_test.go checks InfluxDB's side).
func TestEscapingOfLineBreaksAndTrailingBackslashes(t *testing.T) {
	for in, want := range map[string]string{
		"plain": "plain", "a b,c=d": `a\ b\,c\=d`, "l1\nl2": `l1\nl2`, "x\r\n": `x\r\n`,
		`end\`: "end%5C", `two\\`: "two%5C%5C", `mid\ x`: `mid\\ x`, `\`: "%5C", "": "",
	} {
		if got := escapeString(in, tagEscapes); got != want {
			t.Errorf("tag value %q: %q, want %q", in, got, want)
		}
	}
}

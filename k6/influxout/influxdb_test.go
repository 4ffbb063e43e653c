//go:build influxdb

// Against a real InfluxDB 1.x, the test stack's (FP_INFLUX_URL; `make test-e2e-influx-lp`, part of
// `make test`): what InfluxDB stores of tag values that line protocol cannot carry as they are,
// and what a write it could only partly parse costs. httptest cannot stand in here: the point is
// what InfluxDB's own parser does.
package influxout

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/sirupsen/logrus"
	"go.k6.io/k6/metrics"
	"go.k6.io/k6/output"
)

func influxURL(t *testing.T) string {
	u := os.Getenv("FP_INFLUX_URL")
	if u == "" {
		t.Fatal("FP_INFLUX_URL is not set: run make test-e2e-influx-lp with the test stack up (source tools/test-env.sh)")
	}
	return u
}

// influx runs InfluxQL on db and returns the first statement's series.
func influx(t *testing.T, db, q string) []struct {
	Name   string            `json:"name"`
	Tags   map[string]string `json:"tags"`
	Values [][]any           `json:"values"`
} {
	t.Helper()
	res, err := http.PostForm(influxURL(t)+"/query", url.Values{"db": {db}, "q": {q}})
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var body struct {
		Results []struct {
			Error  string `json:"error"`
			Series []struct {
				Name   string            `json:"name"`
				Tags   map[string]string `json:"tags"`
				Values [][]any           `json:"values"`
			} `json:"series"`
		} `json:"results"`
	}
	b, _ := io.ReadAll(res.Body)
	if err := json.Unmarshal(b, &body); err != nil || len(body.Results) == 0 || body.Results[0].Error != "" {
		t.Fatalf("InfluxDB: %s (%v) for %s", b, err, q)
	}
	out := make([]struct {
		Name   string            `json:"name"`
		Tags   map[string]string `json:"tags"`
		Values [][]any           `json:"values"`
	}, len(body.Results[0].Series))
	for i, s := range body.Results[0].Series {
		out[i].Name, out[i].Tags, out[i].Values = s.Name, s.Tags, s.Values
	}
	return out
}

// newRealOutput is an Output writing to a fresh database of the real InfluxDB, and its loss file.
func newRealOutput(t *testing.T) (*Output, string, string) {
	db := fmt.Sprintf("lp_test_%d", time.Now().UnixNano())
	t.Cleanup(func() { influx(t, db, `DROP DATABASE "`+db+`"`) })
	lossFile := filepath.Join(t.TempDir(), "sample-loss.json")
	logger := logrus.New()
	logger.SetOutput(io.Discard)
	out, err := New(output.Params{ConfigArgument: influxURL(t) + "/" + db, Logger: logger,
		Environment: map[string]string{"K6_INFLUXDB_LOSS_FILE": lossFile, "K6_INFLUXDB_PUSH_INTERVAL": "1h"}})
	if err != nil {
		t.Fatal(err)
	}
	o := out.(*Output)
	if err := o.Start(); err != nil {
		t.Fatal(err)
	}
	return o, db, lossFile
}

func readLoss(t *testing.T, path string) Loss {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var l Loss
	if err := json.Unmarshal(b, &l); err != nil {
		t.Fatal(err)
	}
	return l
}

// A tag value with a line break once became two lines, the second a point of a measurement named
// after its text, and the first unparseable but counted as written; one ending in a backslash
// made InfluxDB refuse its whole write. Each is now one point of its own metric, stored as the
// encoder documents, and every sample is written.
func TestRealInfluxDBStoresEveryOddTagValueAsOnePoint(t *testing.T) {
	stored := map[string]string{ // the sample's tag value: what InfluxDB holds
		"plain": "plain", "line1\nline2 x=1": `line1\nline2 x=1`, "crlf\r\nend": `crlf\r\nend`, `ends\`: "ends%5C",
		`two\\`: "two%5C%5C", `mid\ x`: `mid\ x`, "a,b=c d": "a,b=c d", `C:\path\`: `C:\path%5C`,
	}
	o, db, lossFile := newRealOutput(t)
	reg := metrics.NewRegistry()
	m := reg.MustNewMetric("lp_check", metrics.Counter)
	t0 := time.Unix(1_800_000_000, 0)
	var c metrics.Samples
	i := 0
	for v := range stored {
		c = append(c, metrics.Sample{TimeSeries: metrics.TimeSeries{Metric: m, Tags: reg.RootTagSet().With("t", v).With("testid", "lp")}, Time: t0.Add(time.Duration(i) * time.Second), Value: 1})
		i++
	}
	o.AddMetricSamples([]metrics.SampleContainer{c})
	o.flush()
	if err := o.Stop(); err != nil {
		t.Fatal(err)
	}
	if l := readLoss(t, lossFile); l.Written != int64(len(stored)) || l.Dropped != 0 {
		t.Fatalf("loss report: %+v, want all %d written", l, len(stored))
	}
	var names []string
	for _, s := range influx(t, db, "SHOW MEASUREMENTS") {
		for _, v := range s.Values {
			names = append(names, v[0].(string))
		}
	}
	if strings.Join(names, ",") != "lp_check" {
		t.Fatalf("measurements %v: a tag value's text became a measurement of its own", names)
	}
	var got []string
	for _, s := range influx(t, db, `SELECT count("value") FROM "lp_check" GROUP BY "t"`) {
		got = append(got, s.Tags["t"])
	}
	var want []string
	for _, v := range stored {
		want = append(want, v)
	}
	sort.Strings(got)
	sort.Strings(want)
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("stored tag values\n got %q\nwant %q", got, want)
	}
}

// Lines InfluxDB cannot parse in a write it otherwise takes: InfluxDB 1.x answers 400 "partial
// write: unable to parse '<line>': ... dropped=0". Those lines are lost and counted so, and the
// loss report never quotes them (their tags are the run's). The batch is written as
// influxdb1-client would have encoded it, past the encoder.
func TestRealInfluxDBLinesItCannotParseAreCountedLost(t *testing.T) {
	o, db, lossFile := newRealOutput(t)
	body := "lp_check,t=ok1 value=1 1800000000000000000\n" +
		"lp_check,t=patron-4711\\ value=1 1800000001000000000\n" + // a trailing backslash: invalid tag format
		"lp_check,t=ok2 value=1 1800000002000000000\n" +
		"lp_check,t=item-0815 value= 1800000003000000000\n" + // missing field value
		"lp_check,t=ok3 value=1 1800000004000000000\n"
	o.send.enqueue(&batch{body: []byte(body), points: 5, born: time.Now()})
	if err := o.Stop(); err != nil {
		t.Fatal(err)
	}
	l := readLoss(t, lossFile)
	if l.Written != 3 || l.Dropped != 2 {
		t.Fatalf("loss report %+v: want 3 written, 2 lost", l)
	}
	if r := l.reasonText(); !strings.Contains(r, "400: partial write: unable to parse a line: ") || strings.Contains(r, "patron-4711") || strings.Contains(r, "item-0815") {
		t.Fatalf("reasons %q: want InfluxDB's cause without the line", r)
	}
	if s := influx(t, db, `SELECT count("value") FROM "lp_check"`); len(s) != 1 || s[0].Values[0][1].(float64) != 3 {
		t.Fatalf("InfluxDB holds %v, want the 3 parseable points", s)
	}
}

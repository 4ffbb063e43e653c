package influxout

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sirupsen/logrus"
	"go.k6.io/k6/metrics"
	"go.k6.io/k6/output"
)

// fakeInflux is an InfluxDB /write endpoint whose answer a test chooses per
// request; it keeps every line it accepted (by line, so a retried write that
// had been accepted is not counted twice).
type fakeInflux struct {
	t       *testing.T
	srv     *httptest.Server
	answer  func(n int, body []byte) int // status for the n-th write (from 1); 0 closes the connection
	mu      sync.Mutex
	lines   map[string]bool
	writes  atomic.Int64
	largest atomic.Int64
}

func newFakeInflux(t *testing.T, answer func(n int, body []byte) int) *fakeInflux {
	f := &fakeInflux{t: t, answer: answer, lines: map[string]bool{}}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/write" {
			w.WriteHeader(http.StatusOK) // CREATE DATABASE
			return
		}
		body, _ := io.ReadAll(r.Body)
		n := int(f.writes.Add(1))
		if int64(len(body)) > f.largest.Load() {
			f.largest.Store(int64(len(body)))
		}
		switch st := f.answer(n, body); st {
		case 0:
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				conn.Close()
			}
		case http.StatusNoContent:
			f.mu.Lock()
			sc := bufio.NewScanner(strings.NewReader(string(body)))
			sc.Buffer(nil, 1<<20)
			for sc.Scan() {
				f.lines[sc.Text()] = true
			}
			f.mu.Unlock()
			w.WriteHeader(st)
		case http.StatusRequestEntityTooLarge:
			w.WriteHeader(st)
			io.WriteString(w, `{"error":"Request Entity Too Large"}`)
		case http.StatusBadRequest:
			// As InfluxDB 1.x: the other points of a partial write are kept.
			f.mu.Lock()
			for i, line := range strings.Split(strings.TrimSpace(string(body)), "\n") {
				if i >= 3 {
					f.lines[line] = true
				}
			}
			f.mu.Unlock()
			w.WriteHeader(st)
			io.WriteString(w, `{"error":"partial write: field type conflict: input field \"value\" on measurement \"x\" is type string, already exists as type float dropped=3"}`)
		default:
			w.WriteHeader(st)
			io.WriteString(w, `{"error":"timeout"}`)
		}
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeInflux) stored() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.lines)
}

// run sends n samples through a real Output (in pushes of `per` samples,
// one flush each) and stops it; it returns the loss report the output wrote.
func run(t *testing.T, f *fakeInflux, env map[string]string, n, per int) Loss {
	t.Helper()
	lossFile := filepath.Join(t.TempDir(), "sample-loss.json")
	e := map[string]string{"K6_INFLUXDB_LOSS_FILE": lossFile, "K6_INFLUXDB_PUSH_INTERVAL": "1h"}
	for k, v := range env {
		e[k] = v
	}
	logger := logrus.New()
	logger.SetOutput(io.Discard)
	out, err := New(output.Params{ConfigArgument: f.srv.URL + "/k6", Environment: e, Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	o := out.(*Output)
	o.send.sleep = func(d time.Duration) { time.Sleep(d / 20) } // backoff schedule kept, time shortened
	if err := o.Start(); err != nil {
		t.Fatal(err)
	}
	reg := metrics.NewRegistry()
	m := reg.MustNewMetric("http_req_duration", metrics.Trend)
	tags := reg.RootTagSet().With("name", "GET /users").With("testid", "t1")
	t0 := time.Unix(1_800_000_000, 0)
	for i := 0; i < n; i += per {
		var c metrics.Samples
		for j := i; j < min(i+per, n); j++ {
			c = append(c, metrics.Sample{TimeSeries: metrics.TimeSeries{Metric: m, Tags: tags}, Time: t0.Add(time.Duration(j) * time.Microsecond), Value: float64(j)})
		}
		o.AddMetricSamples([]metrics.SampleContainer{c})
		o.flush()
	}
	// One sample InfluxDB cannot store: skipped, and not a loss.
	o.AddMetricSamples([]metrics.SampleContainer{metrics.Samples{{TimeSeries: metrics.TimeSeries{Metric: m, Tags: tags}, Time: t0, Value: math.NaN()}}})
	if err := o.Stop(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(lossFile)
	if err != nil {
		t.Fatal(err)
	}
	var l Loss
	if err := json.Unmarshal(b, &l); err != nil {
		t.Fatalf("loss file: %v: %s", err, b)
	}
	if l.Samples != int64(n) || l.Written+l.Dropped != l.Samples || l.Skipped != 1 {
		t.Fatalf("counts do not add up for %d samples: %+v", n, l)
	}
	return l
}

func TestDelivery(t *testing.T) {
	const n = 20000 // about 1.4 MB of line protocol
	cases := []struct {
		name   string
		answer func(n int, body []byte) int
		env    map[string]string
		per    int
		// want
		dropped    int64
		reason     string
		maxWrites  int64 // 0: any
		maxLargest int64 // 0: any
	}{
		{name: "all accepted, cut at the batch size", answer: func(int, []byte) int { return 204 },
			env: map[string]string{"K6_INFLUXDB_BATCH_BYTES": "64KiB"}, per: n, maxLargest: 64 << 10},
		{name: "413 past 16 KiB: split, nothing lost", per: n,
			answer: func(_ int, b []byte) int {
				if len(b) > 16<<10 {
					return 413
				}
				return 204
			}},
		{name: "503 for the first 6 writes: retried, nothing lost", per: 2000,
			answer: func(n int, _ []byte) int {
				if n <= 6 {
					return 503
				}
				return 204
			}},
		{name: "500 and closed connections for a while: retried, nothing lost", per: 2000,
			answer: func(n int, _ []byte) int {
				switch {
				case n <= 3:
					return 0
				case n <= 6:
					return 500
				}
				return 204
			}},
		{name: "429 is retried too", per: n, answer: func(n int, _ []byte) int {
			if n == 1 {
				return 429
			}
			return 204
		}},
		{name: "down for longer than the retry time: dropped and counted", per: 2000,
			env:    map[string]string{"K6_INFLUXDB_RETRY_TIMEOUT": "300ms"},
			answer: func(int, []byte) int { return 503 }, dropped: n, reason: "K6_INFLUXDB_RETRY_TIMEOUT=300ms"},
		{name: "400 partial write: not retried, InfluxDB's dropped count", per: n,
			answer: func(int, []byte) int { return 400 }, dropped: 3, reason: "400: ", maxWrites: 1},
		{name: "401 is not retried", per: n, env: map[string]string{"K6_INFLUXDB_RETRY_TIMEOUT": "1h"},
			answer: func(int, []byte) int { return 401 }, dropped: n, reason: "401: ", maxWrites: 1},
		{name: "a single line over max-body-size is dropped alone", per: n,
			answer: func(_ int, b []byte) int {
				if len(b) > 60 {
					return 413
				}
				return 204
			}, dropped: n, reason: "413"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFakeInflux(t, c.answer)
			l := run(t, f, c.env, n, c.per)
			if l.Dropped != c.dropped {
				t.Fatalf("dropped %d, want %d: %+v", l.Dropped, c.dropped, l)
			}
			if got := int64(f.stored()); got != l.Written {
				t.Fatalf("InfluxDB holds %d points, the output says it wrote %d", got, l.Written)
			}
			if c.reason != "" && !strings.Contains(l.reasonText(), c.reason) {
				t.Fatalf("reasons %q do not name %q", l.reasonText(), c.reason)
			}
			if c.maxWrites > 0 && f.writes.Load() > c.maxWrites {
				t.Fatalf("%d writes, want at most %d (not retried)", f.writes.Load(), c.maxWrites)
			}
			if c.maxLargest > 0 && f.largest.Load() > c.maxLargest {
				t.Fatalf("a write of %d bytes, want at most %d", f.largest.Load(), c.maxLargest)
			}
		})
	}
}

// While InfluxDB does not answer, the waiting batches stay under
// K6_INFLUXDB_BUFFER_BYTES: the oldest are dropped, counted, and the newest
// are written once InfluxDB is back.
func TestBufferIsBoundedDroppingTheOldest(t *testing.T) {
	release := make(chan struct{})
	var once sync.Once
	f := newFakeInflux(t, func(n int, _ []byte) int {
		if n == 1 {
			<-release // the first write hangs until every batch is queued
		}
		return 204
	})
	env := map[string]string{"K6_INFLUXDB_BATCH_BYTES": "8KiB", "K6_INFLUXDB_BUFFER_BYTES": "32KiB"}
	go func() { time.Sleep(300 * time.Millisecond); once.Do(func() { close(release) }) }()
	l := run(t, f, env, 5000, 100)
	if l.Dropped == 0 || !strings.Contains(l.reasonText(), "buffer full") {
		t.Fatalf("nothing dropped for the buffer cap: %+v", l)
	}
	if int64(f.stored()) != l.Written {
		t.Fatalf("InfluxDB holds %d, written %d", f.stored(), l.Written)
	}
	// What is kept is the newest: the last sample (value 4999) is there.
	found := false
	for line := range f.lines {
		if strings.Contains(line, "value=4999 ") {
			found = true
		}
	}
	if !found {
		t.Fatal("the newest sample was dropped instead of the oldest")
	}
}

func TestSplitKeepsWholeLines(t *testing.T) {
	for _, body := range []string{"a\n", "a\nb\n", "aaaaaaaaaa\nb\n", "a\nbbbbbbbbbbbb\n", "a\nb\nc\nd\ne\n"} {
		n := strings.Count(body, "\n")
		if n < 2 {
			continue
		}
		x, y := split(&batch{body: []byte(body), points: n})
		if string(x.body)+string(y.body) != body || x.points+y.points != n || x.points == 0 || y.points == 0 ||
			x.points != strings.Count(string(x.body), "\n") || !strings.HasSuffix(string(x.body), "\n") {
			t.Errorf("split(%q) = %q (%d), %q (%d)", body, x.body, x.points, y.body, y.points)
		}
	}
}

func TestDeliverySettings(t *testing.T) {
	c, err := ParseConfig("http://127.0.0.1:8086/k6", map[string]string{})
	if err != nil || c.BatchBytes != DefaultBatchBytes || c.RetryTimeout != DefaultRetryTimeout || c.BufferBytes != DefaultBufferBytes {
		t.Fatalf("defaults: %+v %v", c, err)
	}
	c, err = ParseConfig("http://127.0.0.1:8086/k6", map[string]string{"K6_INFLUXDB_BATCH_BYTES": "1MiB",
		"K6_INFLUXDB_RETRY_TIMEOUT": "0", "K6_INFLUXDB_BUFFER_BYTES": "64MB", "K6_INFLUXDB_LOSS_FILE": "/tmp/x.json"})
	if err != nil || c.BatchBytes != 1<<20 || c.RetryTimeout != 0 || c.BufferBytes != 64<<20 || c.LossFile != "/tmp/x.json" {
		t.Fatalf("settings: %+v %v", c, err)
	}
	for k, v := range map[string]string{"K6_INFLUXDB_BATCH_BYTES": "12", "K6_INFLUXDB_RETRY_TIMEOUT": "-1s",
		"K6_INFLUXDB_BUFFER_BYTES": "1KiB", "K6_INFLUXDB_BATCH_BYTES ": "x"} {
		if _, err := ParseConfig("http://127.0.0.1:8086/k6", map[string]string{strings.TrimSpace(k): v}); err == nil || !strings.Contains(err.Error(), strings.TrimSpace(k)) {
			t.Errorf("%s=%s: %v, want an error naming the setting", k, v, err)
		}
	}
}

// An InfluxDB that takes connections and never answers: every write lasts its
// whole timeout. When k6 stops with a run's last 40 batches still queued, the
// stop ends within K6_INFLUXDB_RETRY_TIMEOUT (one write's timeout when it is 0)
// instead of a write timeout per batch, and every sample is counted lost,
// those whose time ran out while they waited unsent. The clock is the test's,
// so the bound is checked exactly, not timed.
func TestStopIsBoundedWhenInfluxDBNeverAnswers(t *testing.T) {
	for _, retry := range []time.Duration{60 * time.Second, 20 * time.Second, 0} {
		t.Run(retry.String(), func(t *testing.T) {
			var mu sync.Mutex
			clock := time.Unix(1_800_000_000, 0)
			now := func() time.Time { mu.Lock(); defer mu.Unlock(); return clock }
			advance := func(d time.Duration) { mu.Lock(); clock = clock.Add(d); mu.Unlock() }
			var posts atomic.Int64
			hang := func(_ string, _ url.Values, _ []byte, timeout time.Duration) (int, string, error) {
				if timeout <= 0 || timeout > writeTimeout {
					t.Errorf("a write with timeout %s (want within (0, %s])", timeout, writeTimeout)
				}
				posts.Add(1)
				advance(timeout)
				return 0, "", errors.New("context deadline exceeded")
			}
			logger := logrus.New()
			logger.SetOutput(io.Discard)
			s := newSender(Config{DB: "k6", BatchBytes: DefaultBatchBytes, RetryTimeout: retry, BufferBytes: DefaultBufferBytes}, logger, hang)
			s.now, s.sleep = now, advance
			start := now()
			for i := 0; i < 40; i++ { // encoded one a second over the run's last 40 s
				s.enqueue(&batch{body: []byte("x value=1 1\n"), points: 100, born: start.Add(time.Duration(i-40) * time.Second)})
			}
			s.start()
			s.close()
			bound := retry
			if bound == 0 {
				bound = writeTimeout
			}
			l := s.report()
			t.Logf("retry %s: stopped after %s, %d writes tried for 40 batches, %s", retry, now().Sub(start), posts.Load(), l.reasonText())
			if took := now().Sub(start); took > bound {
				t.Fatalf("the stop took %s of the test's clock, want at most %s (K6_INFLUXDB_RETRY_TIMEOUT=%s)", took, bound, retry)
			}
			if l.Samples != 4000 || l.Dropped != 4000 || l.Written != 0 {
				t.Fatalf("want all 4000 samples counted lost: %+v", l)
			}
			// Batches whose time is up before their turn are not sent at all: under a
			// retry time shorter than the queue's age (or 0) most of them.
			if unsent := strings.Contains(l.reasonText(), "not sent: "); unsent != (retry < 40*time.Second) {
				t.Fatalf("reasons %q: batches left unsent %v, want %v", l.reasonText(), unsent, retry < 40*time.Second)
			}
			if retry < 40*time.Second && posts.Load() >= 40 {
				t.Fatalf("%d writes tried for 40 batches, most of them past their time", posts.Load())
			}
		})
	}
}

// A write's timeout reaches the request itself: against a server that never
// answers, post returns when its timeout is over (else this test hangs).
func TestPostHonoursItsTimeout(t *testing.T) {
	block := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { <-block }))
	defer srv.Close()
	defer close(block)
	o := &Output{cfg: Config{Addr: srv.URL, DB: "k6"}, client: &http.Client{Timeout: time.Hour}}
	status, _, err := o.post("/write", url.Values{"db": {"k6"}}, []byte("x value=1 1\n"), 50*time.Millisecond)
	if err == nil || status != 0 || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("post to a server that never answers: status %d, err %v; want no status and the deadline", status, err)
	}
}

// K6_INFLUXDB_METRICS: only the listed metrics are written; the others are
// neither sent nor counted lost, and `*` (or nothing) keeps every metric.
func TestOnlyTheListedMetricsAreWritten(t *testing.T) {
	for _, c := range []struct {
		list       string
		written    int64
		unselected int64
	}{{"http_reqs, transaction_duration", 200, 100}, {"*", 300, 0}, {"", 300, 0}} {
		f := newFakeInflux(t, func(int, []byte) int { return 204 })
		lossFile := filepath.Join(t.TempDir(), "loss.json")
		logger := logrus.New()
		logger.SetOutput(io.Discard)
		out, err := New(output.Params{ConfigArgument: f.srv.URL + "/k6", Logger: logger,
			Environment: map[string]string{"K6_INFLUXDB_METRICS": c.list, "K6_INFLUXDB_LOSS_FILE": lossFile, "K6_INFLUXDB_PUSH_INTERVAL": "1h"}})
		if err != nil {
			t.Fatal(err)
		}
		o := out.(*Output)
		if err := o.Start(); err != nil {
			t.Fatal(err)
		}
		reg := metrics.NewRegistry()
		tags := reg.RootTagSet().With("testid", "t1")
		var samples metrics.Samples
		for i, name := range []string{"http_reqs", "http_req_waiting", "transaction_duration"} {
			m := reg.MustNewMetric(name, metrics.Trend)
			for j := 0; j < 100; j++ {
				samples = append(samples, metrics.Sample{TimeSeries: metrics.TimeSeries{Metric: m, Tags: tags}, Time: time.Unix(1_800_000_000, int64(i*1000+j)), Value: 1})
			}
		}
		o.AddMetricSamples([]metrics.SampleContainer{samples})
		o.flush()
		if err := o.Stop(); err != nil {
			t.Fatal(err)
		}
		var l Loss
		b, _ := os.ReadFile(lossFile)
		if err := json.Unmarshal(b, &l); err != nil {
			t.Fatal(err)
		}
		if l.Written != c.written || l.Dropped != 0 || l.Unselected != c.unselected || int64(f.stored()) != c.written {
			t.Errorf("K6_INFLUXDB_METRICS=%q: %+v, %d stored; want %d written, %d unselected", c.list, l, f.stored(), c.written, c.unselected)
		}
		for line := range f.lines {
			if c.list != "*" && c.list != "" && strings.HasPrefix(line, "http_req_waiting") {
				t.Errorf("K6_INFLUXDB_METRICS=%q wrote %s", c.list, line)
			}
		}
	}
	if _, err := ParseConfig("http://127.0.0.1:8086/k6", map[string]string{"K6_INFLUXDB_METRICS": " , "}); err == nil || !strings.Contains(err.Error(), "K6_INFLUXDB_METRICS") {
		t.Errorf("an empty list: %v, want an error naming the setting", err)
	}
}

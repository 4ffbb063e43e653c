// Package influxout is folio-perf's InfluxDB v1 output for k6, registered as
// "influxdb-lp": `k6 run -o influxdb-lp=http://127.0.0.1:8086/k6`.
//
// It writes the same points as k6's built-in "influxdb" output (measurement =
// metric name, tags = the sample's tags, K6_INFLUXDB_TAGS_AS_FIELDS written as
// fields, field "value"), so dashboards, reports and InfluxQL work with either.
// What differs is the cost: the built-in output builds an influxdb1-client
// Point per sample (a tag map, a sort, a field map, escaping), about 4 µs of
// k6's CPU per sample and a quarter of k6's CPU in a CICO run, where every
// request makes eleven samples. This one encodes line protocol directly and
// each TagSet's tags once per batch (encode.go).
//
// Settings, as the built-in output's: the URL gives the address, the database
// (path) and optionally user:password; K6_INFLUXDB_USERNAME,
// K6_INFLUXDB_PASSWORD, K6_INFLUXDB_PUSH_INTERVAL (default 1s) and
// K6_INFLUXDB_TAGS_AS_FIELDS (default vu,iter,url) override. Only HTTP(S) and
// nanosecond precision are supported; other settings are refused.
//
// Unlike k6's output, it does not lose a batch to one failed write: writes are
// capped (K6_INFLUXDB_BATCH_BYTES), retried (K6_INFLUXDB_RETRY_TIMEOUT), the
// waiting ones bounded (K6_INFLUXDB_BUFFER_BYTES), and what could not be
// delivered is counted and reported when the output stops (sender.go,
// K6_INFLUXDB_LOSS_FILE).
package influxout

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/sirupsen/logrus"
	"go.k6.io/k6/output"
)

// Name is the output's name on k6's command line (-o influxdb-lp=<url>).
const Name = "influxdb-lp"

func init() {
	output.RegisterExtension(Name, New)
}

// Config is where and how the output writes.
type Config struct {
	Addr         string // scheme://host:port
	DB           string
	Username     string
	Password     string
	PushInterval time.Duration
	TagsAsFields []tagField

	// BatchBytes caps one write's body (K6_INFLUXDB_BATCH_BYTES, default
	// 4 MiB): InfluxDB 1.x refuses a body over its max-body-size (25 MB by
	// default) with 413 and keeps none of it. A 413 still halves the batch.
	BatchBytes int
	// RetryTimeout is how long a batch is retried, counted from when it was
	// encoded (K6_INFLUXDB_RETRY_TIMEOUT, default 60s; 0 = never retried).
	RetryTimeout time.Duration
	// BufferBytes caps the encoded batches waiting for InfluxDB
	// (K6_INFLUXDB_BUFFER_BYTES, default 256 MiB); past it the oldest go.
	BufferBytes int64
	// LossFile, when set (K6_INFLUXDB_LOSS_FILE), receives the counts of
	// samples written and lost, as JSON, when the output stops.
	LossFile string
	// Metrics, when set (K6_INFLUXDB_METRICS, names separated by commas; `*`
	// or unset: every metric), are the only metrics written: a CICO request
	// makes eleven samples and the dashboards, report and verdict read three of
	// them (folio-perf sets the list from lib/metrics.js). The others are not
	// sent and not a loss (Loss.Unselected counts them).
	Metrics map[string]bool
}

// Defaults of the delivery settings.
const (
	DefaultBatchBytes   = 4 << 20
	DefaultRetryTimeout = 60 * time.Second
	DefaultBufferBytes  = 256 << 20
	minBatchBytes       = 1 << 10
)

// ParseConfig reads the -o argument and the environment. As in k6's output,
// the URL's parts win over K6_INFLUXDB_ADDR, K6_INFLUXDB_DB,
// K6_INFLUXDB_USERNAME and K6_INFLUXDB_PASSWORD, and a blank
// K6_INFLUXDB_TAGS_AS_FIELDS keeps the default.
func ParseConfig(arg string, env map[string]string) (Config, error) {
	c := Config{Addr: env["K6_INFLUXDB_ADDR"], DB: "k6", Username: env["K6_INFLUXDB_USERNAME"], Password: env["K6_INFLUXDB_PASSWORD"],
		PushInterval: time.Second, TagsAsFields: []tagField{{"vu", String}, {"iter", String}, {"url", String}},
		BatchBytes: DefaultBatchBytes, RetryTimeout: DefaultRetryTimeout, BufferBytes: DefaultBufferBytes, LossFile: env["K6_INFLUXDB_LOSS_FILE"]}
	if v := env["K6_INFLUXDB_DB"]; v != "" {
		c.DB = v
	}
	if arg == "" {
		return c, errors.New("no InfluxDB URL: use -o " + Name + "=http://host:8086/<database>")
	}
	u, err := url.Parse(arg)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return c, fmt.Errorf("%q is not an InfluxDB URL: use -o %s=http://host:8086/<database>", redact(arg), Name)
	}
	c.Addr = u.Scheme + "://" + u.Host
	if db := strings.Trim(u.Path, "/"); db != "" {
		c.DB = db
	}
	if u.User != nil {
		c.Username = u.User.Username()
		if p, ok := u.User.Password(); ok {
			c.Password = p
		}
	}
	if len(u.Query()) > 0 {
		return c, fmt.Errorf("%s takes no URL parameters (got %q): set K6_INFLUXDB_* in the environment, or use k6's influxdb output", Name, u.RawQuery)
	}
	if v := env["K6_INFLUXDB_PUSH_INTERVAL"]; v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return c, fmt.Errorf("K6_INFLUXDB_PUSH_INTERVAL %q is not a positive duration (e.g. 1s)", v)
		}
		c.PushInterval = d
	}
	if v := env["K6_INFLUXDB_RETRY_TIMEOUT"]; v != "" {
		d, err := time.ParseDuration(v)
		if v == "0" {
			d, err = 0, nil
		}
		if err != nil || d < 0 {
			return c, fmt.Errorf("K6_INFLUXDB_RETRY_TIMEOUT %q is not a duration (e.g. 60s; 0 never retries)", v)
		}
		c.RetryTimeout = d
	}
	if v := env["K6_INFLUXDB_BATCH_BYTES"]; v != "" {
		n, err := parseBytes(v)
		if err != nil || n < minBatchBytes || n > 1<<30 {
			return c, fmt.Errorf("K6_INFLUXDB_BATCH_BYTES %q is not a size between 1KiB and 1GiB (e.g. 4MiB, below InfluxDB's max-body-size)", v)
		}
		c.BatchBytes = int(n)
	}
	if v := env["K6_INFLUXDB_BUFFER_BYTES"]; v != "" {
		n, err := parseBytes(v)
		if err != nil || n < int64(c.BatchBytes) {
			return c, fmt.Errorf("K6_INFLUXDB_BUFFER_BYTES %q is not a size of at least one batch (%d bytes), e.g. 256MiB", v, c.BatchBytes)
		}
		c.BufferBytes = n
	}
	if v := strings.TrimSpace(env["K6_INFLUXDB_METRICS"]); v != "" && v != "*" {
		c.Metrics = map[string]bool{}
		for _, name := range strings.Split(v, ",") {
			if name = strings.TrimSpace(name); name != "" {
				c.Metrics[name] = true
			}
		}
		if len(c.Metrics) == 0 {
			return c, fmt.Errorf("K6_INFLUXDB_METRICS %q names no metric: list them separated by commas, or * for every one", v)
		}
	}
	if v := env["K6_INFLUXDB_TAGS_AS_FIELDS"]; strings.TrimSpace(v) != "" {
		if c.TagsAsFields, err = parseTagsAsFields(v); err != nil {
			return c, err
		}
	}
	for _, k := range []string{"K6_INFLUXDB_PRECISION", "K6_INFLUXDB_RETENTION", "K6_INFLUXDB_CONSISTENCY", "K6_INFLUXDB_PROXY", "K6_INFLUXDB_INSECURE"} {
		if env[k] != "" {
			return c, fmt.Errorf("%s is not supported by %s: unset it, or use k6's influxdb output", k, Name)
		}
	}
	return c, nil
}

// parseBytes reads a size: a number of bytes, or with KiB, MiB, GiB (or
// KB, MB, GB, taken as the binary units too).
func parseBytes(v string) (int64, error) {
	s := strings.TrimSpace(v)
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"KB", 1 << 10}, {"MB", 1 << 20}, {"GB", 1 << 30}, {"B", 1}} {
		if strings.HasSuffix(s, u.suffix) {
			s, mult = strings.TrimSpace(strings.TrimSuffix(s, u.suffix)), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 || n > math.MaxInt64/mult {
		return 0, fmt.Errorf("%q is not a size", v)
	}
	return n * mult, nil
}

// parseTagsAsFields reads "vu:int,iter:int,url" (kinds string, int, float,
// bool; string when omitted), as k6's influxdb output does.
func parseTagsAsFields(v string) ([]tagField, error) {
	var out []tagField
	seen := map[string]bool{}
	for _, item := range strings.Split(v, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		name, kind, _ := strings.Cut(item, ":")
		k := String
		switch kind {
		case "", "string":
		case "int":
			k = Int
		case "float":
			k = Float
		case "bool":
			k = Bool
		default:
			return nil, fmt.Errorf("K6_INFLUXDB_TAGS_AS_FIELDS: %q has an unknown type %q (string, int, float or bool)", name, kind)
		}
		if seen[name] {
			return nil, fmt.Errorf("K6_INFLUXDB_TAGS_AS_FIELDS: %q appears twice", name)
		}
		seen[name] = true
		out = append(out, tagField{name, k})
	}
	return out, nil
}

// redact hides the credentials of a URL given on the command line, also of
// one that does not parse (a forgotten scheme still has user:password@).
func redact(s string) string {
	if i := strings.LastIndex(s, "@"); i >= 0 {
		scheme := ""
		if j := strings.Index(s[:i], "://"); j >= 0 {
			scheme = s[:j+3]
		}
		return scheme + "<credentials>@" + s[i+1:]
	}
	return s
}

// Output buffers samples, encodes them every PushInterval into batches of at
// most BatchBytes and hands the batches to a sender (sender.go) that writes
// them in order, retrying for up to RetryTimeout.
type Output struct {
	output.SampleBuffer

	cfg     Config
	logger  logrus.FieldLogger
	client  *http.Client
	flusher *output.PeriodicFlusher
	send    *sender

	mu  sync.Mutex // one flush at a time: the encoder is reused
	enc *encoder
}

// New is the output's constructor for k6.
func New(p output.Params) (output.Output, error) {
	cfg, err := ParseConfig(p.ConfigArgument, p.Environment)
	if err != nil {
		return nil, err
	}
	o := &Output{cfg: cfg, logger: p.Logger.WithField("output", Name), enc: newEncoder(cfg.TagsAsFields),
		client: &http.Client{Timeout: writeTimeout}}
	o.send = newSender(cfg, o.logger, o.post)
	return o, nil
}

// writeTimeout bounds one request. A write that times out is retried; if
// InfluxDB had received it after all, the second copy overwrites the first
// (same series, same timestamp), so nothing is counted twice.
const writeTimeout = 10 * time.Second

// Description is shown by k6 run.
func (o *Output) Description() string {
	return fmt.Sprintf("InfluxDB v1 line protocol (%s, database %s)", o.cfg.Addr, o.cfg.DB)
}

// Start creates the database if it is missing (harmless when it exists or the
// user may not create it, as in k6's output) and starts flushing.
func (o *Output) Start() error {
	if _, _, err := o.post("/query", url.Values{"q": {`CREATE DATABASE "` + strings.ReplaceAll(o.cfg.DB, `"`, `\"`) + `"`}}, nil, writeTimeout); err != nil {
		o.logger.WithError(err).Debug("Couldn't create database; most likely harmless")
	}
	pf, err := output.NewPeriodicFlusher(o.cfg.PushInterval, o.flush)
	if err != nil {
		return err
	}
	o.flusher = pf
	o.send.start()
	return nil
}

// Stop encodes what is left, waits until every batch is written or given up
// (at most RetryTimeout after it was encoded), then reports what was lost:
// a line on k6's log when anything was, and the counts in LossFile.
func (o *Output) Stop() error {
	o.flusher.Stop()
	o.send.close()
	r := o.send.report()
	if r.Dropped > 0 {
		o.logger.WithField("reasons", r.reasonText()).Errorf("Lost %d of %d samples (%.2f %%) on the way to InfluxDB", r.Dropped, r.Samples, 100*r.Share)
	} else {
		o.logger.Debugf("All %d samples written to InfluxDB", r.Samples)
	}
	if o.cfg.LossFile != "" {
		if err := r.writeFile(o.cfg.LossFile); err != nil {
			o.logger.WithError(err).Error("Couldn't write the sample-loss report")
			return err
		}
	}
	return nil
}

func (o *Output) flush() {
	containers := o.GetBufferedSamples()
	if len(containers) == 0 {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	limit := o.send.batchLimit()
	now := time.Now()
	b := make([]byte, 0, min(limit, 64<<10))
	n := 0
	for _, c := range containers {
		for _, s := range c.GetSamples() {
			if o.cfg.Metrics != nil && !o.cfg.Metrics[s.Metric.Name] {
				o.send.unselected.Add(1)
				continue
			}
			l := len(b)
			b = o.enc.appendSample(b, s)
			if len(b) == l {
				o.send.skipped.Add(1)
				continue
			}
			n++
			// Cut before the line that passes the limit (a line alone larger
			// than the limit goes in a batch of its own).
			if len(b) > limit && l > 0 {
				line := b[l:]
				o.send.enqueue(&batch{body: b[:l:l], points: n - 1, born: now})
				b = append(make([]byte, 0, min(limit, 64<<10)), line...)
				n = 1
			}
		}
	}
	o.enc.reset()
	if n > 0 {
		o.send.enqueue(&batch{body: b, points: n, born: now})
	}
}

// post sends one request, given up after timeout; a status other than 200/204
// comes back with the start of InfluxDB's message.
func (o *Output) post(path string, q url.Values, body []byte, timeout time.Duration) (int, string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, o.cfg.Addr+path+"?"+q.Encode(), bytes.NewReader(body))
	if err != nil {
		return 0, "", err
	}
	req.Header.Set("User-Agent", "k6")
	if o.cfg.Username != "" {
		req.SetBasicAuth(o.cfg.Username, o.cfg.Password)
	}
	resp, err := o.client.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	// Up to 1 MiB: a partial write lists every line InfluxDB could not parse and
	// puts its dropped=N count last, and the sender counts both.
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode != http.StatusNoContent && resp.StatusCode != http.StatusOK {
		text := strings.TrimSpace(string(msg))
		var e struct { // InfluxDB's JSON error body: its message
			Error string `json:"error"`
		}
		if json.Unmarshal(msg, &e) == nil && e.Error != "" {
			text = e.Error
		}
		return resp.StatusCode, text, fmt.Errorf("%s answered %d: %s", path, resp.StatusCode, firstLine(unparsed.ReplaceAllString(text, "unable to parse a line: ")))
	}
	return resp.StatusCode, "", nil
}

var _ output.Output = (*Output)(nil)

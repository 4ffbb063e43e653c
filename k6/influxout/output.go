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
package influxout

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
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
}

// ParseConfig reads the -o argument and the environment. As in k6's output,
// the URL's parts win over K6_INFLUXDB_ADDR, K6_INFLUXDB_DB,
// K6_INFLUXDB_USERNAME and K6_INFLUXDB_PASSWORD, and a blank
// K6_INFLUXDB_TAGS_AS_FIELDS keeps the default.
func ParseConfig(arg string, env map[string]string) (Config, error) {
	c := Config{Addr: env["K6_INFLUXDB_ADDR"], DB: "k6", Username: env["K6_INFLUXDB_USERNAME"], Password: env["K6_INFLUXDB_PASSWORD"],
		PushInterval: time.Second, TagsAsFields: []tagField{{"vu", String}, {"iter", String}, {"url", String}}}
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

// Output buffers samples and writes them every PushInterval.
type Output struct {
	output.SampleBuffer

	cfg     Config
	logger  logrus.FieldLogger
	client  *http.Client
	flusher *output.PeriodicFlusher

	mu      sync.Mutex // one flush at a time: the encoder is reused
	enc     *encoder
	lastLen int // the previous batch's size, to size the next one's buffer
}

// New is the output's constructor for k6.
func New(p output.Params) (output.Output, error) {
	cfg, err := ParseConfig(p.ConfigArgument, p.Environment)
	if err != nil {
		return nil, err
	}
	return &Output{cfg: cfg, logger: p.Logger.WithField("output", Name), enc: newEncoder(cfg.TagsAsFields),
		client: &http.Client{Timeout: 30 * time.Second}}, nil
}

// Description is shown by k6 run.
func (o *Output) Description() string {
	return fmt.Sprintf("InfluxDB v1 line protocol (%s, database %s)", o.cfg.Addr, o.cfg.DB)
}

// Start creates the database if it is missing (harmless when it exists or the
// user may not create it, as in k6's output) and starts flushing.
func (o *Output) Start() error {
	if err := o.post("/query", url.Values{"q": {`CREATE DATABASE "` + strings.ReplaceAll(o.cfg.DB, `"`, `\"`) + `"`}}, nil); err != nil {
		o.logger.WithError(err).Debug("Couldn't create database; most likely harmless")
	}
	pf, err := output.NewPeriodicFlusher(o.cfg.PushInterval, o.flush)
	if err != nil {
		return err
	}
	o.flusher = pf
	return nil
}

// Stop writes what is left.
func (o *Output) Stop() error {
	o.flusher.Stop()
	return nil
}

func (o *Output) flush() {
	containers := o.GetBufferedSamples()
	if len(containers) == 0 {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	// A new buffer per batch: net/http may still read a request body after
	// Do returns (an early error answer), so the previous one is not reused.
	b := make([]byte, 0, o.lastLen+o.lastLen/4)
	n := 0
	for _, c := range containers {
		for _, s := range c.GetSamples() {
			b = o.enc.appendSample(b, s)
			n++
		}
	}
	o.enc.reset()
	o.lastLen = len(b)
	start := time.Now()
	if err := o.post("/write", url.Values{"db": {o.cfg.DB}}, b); err != nil {
		o.logger.WithError(err).WithField("samples", n).Error("Couldn't write stats")
		return
	}
	if t := time.Since(start); t > o.cfg.PushInterval {
		o.logger.WithField("t", t).Warn("Writing to InfluxDB took longer than the push interval; samples queue up in k6's memory")
	}
}

func (o *Output) post(path string, q url.Values, body []byte) error {
	req, err := http.NewRequest(http.MethodPost, o.cfg.Addr+path+"?"+q.Encode(), bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("User-Agent", "k6")
	if o.cfg.Username != "" {
		req.SetBasicAuth(o.cfg.Username, o.cfg.Password)
	}
	resp, err := o.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	if resp.StatusCode != http.StatusNoContent && resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s answered %d: %s", path, resp.StatusCode, strings.TrimSpace(string(msg)))
	}
	return nil
}

var _ output.Output = (*Output)(nil)
